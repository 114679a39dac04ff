package cli_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"lectern.dev/lectern/cli"
)

// runDemo runs "lectern serve --demo" on dataDir until stdout holds want,
// and returns its stdout, its log and a stop function.
func runDemo(t *testing.T, dataDir, want string) (string, *syncBuffer, string, func()) {
	t.Helper()
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	out, logs := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(ctx, []string{"serve", "--demo", "--addr", addr, "--data-dir", dataDir}, noEnv, strings.NewReader(""), out, logs)
	}()
	stop := func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve --demo: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve --demo did not stop")
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(out.String(), want) {
		select {
		case err := <-done:
			t.Fatalf("serve --demo ended: %v\n%s\n%s", err, out, logs)
		default:
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("no %q after 90s; stdout:\n%s\nlog:\n%s", want, out, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return out.String(), logs, "http://" + addr, stop
}

// TestServeDemo: on an empty data folder, serve --demo deploys its example
// site and prints a key that works, the live site's address and commands
// to paste; run again on the same folder, it seeds nothing more.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	out, logs, base, stop := runDemo(t, data, "The Lectern demo is ready")
	key := ""
	for _, f := range strings.Fields(out) {
		if strings.HasPrefix(f, "lct_") {
			key = f
			break
		}
	}
	if key == "" {
		t.Fatalf("no API key printed:\n%s", out)
	}
	saved, err := os.ReadFile(filepath.Join(data, "demo-api-key"))
	if err != nil || strings.TrimSpace(string(saved)) != key {
		t.Errorf("demo-api-key holds %q (%v), want the printed key", saved, err)
	}
	if fi, err := os.Stat(filepath.Join(data, "demo-api-key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("demo-api-key mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	for _, want := range []string{"Live site:  " + strings.Replace(base, "127.0.0.1", "docs.localhost", 1) + "/",
		" export --domain docs.localhost --wait", ` update "$PROJECT_ID" --wait`, "export PROJECT_ID=prj_", "export LECTERN_API_URL=" + base} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	// The live site is up, components rendered.
	if code, body := page(t, base, "docs.localhost", "/"); code != 200 || !strings.Contains(body, "Welcome") {
		t.Errorf("live home page: %d %.300s", code, body)
	}
	if code, body := page(t, base, "docs.localhost:8080", "/guides/components"); code != 200 || !strings.Contains(body, "lc-tabs") {
		t.Errorf("components page: %d %.300s", code, body)
	}
	// The key works: the demo organization is enterprise, so exports start.
	if code, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.localhost"}); code != 202 {
		t.Errorf("export with the demo key: %d %v", code, job)
	} else if final := pollExport(t, base, key, job["jobId"].(string), false); final["status"] != "completed" {
		t.Errorf("demo export: %v", final)
	}
	if strings.Contains(logs.String(), key) {
		t.Error("the demo key appears in the log")
	}
	stop()

	// Again on the same folder: nothing new is seeded, no key is shown.
	out, _, _, stop = runDemo(t, data, "already set up")
	defer stop()
	if strings.Contains(out, "lct_") {
		t.Errorf("the second run printed a key:\n%s", out)
	}
	if !strings.Contains(out, "demo-api-key") {
		t.Errorf("the second run does not say where the key is:\n%s", out)
	}
}

// --demo needs a process that runs both the API and the workers.
func TestServeDemoNeedsRoleAll(t *testing.T) {
	t.Parallel()
	var errb syncBuffer
	err := cli.Run(context.Background(), []string{"serve", "--demo", "--role", "api", "--data-dir", t.TempDir()}, noEnv, strings.NewReader(""), &errb, &errb)
	if err == nil || !strings.Contains(err.Error(), "--demo needs --role all") {
		t.Errorf("serve --demo --role api: %v", err)
	}
}

// demoProc is a lectern serve --demo running as a process of its own (in
// its own process group, so that stopping go run stops the program it
// runs).
type demoProc struct {
	cmd      *exec.Cmd
	out, log *syncBuffer
	exited   chan struct{}
}

// startDemo runs argv (serve --demo, a free port and dataDir appended) in
// dir with env, and waits up to wait for the printout's end.
func startDemo(t *testing.T, dir string, env []string, wait time.Duration, dataDir string, argv ...string) string {
	t.Helper()
	argv = append(argv, "serve", "--demo", "--addr", freeAddr(t), "--data-dir", dataDir)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &demoProc{cmd: cmd, out: &syncBuffer{}, log: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		// SIGINT lets go run remove its work folder once the program ends.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-p.exited:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
		}
	})
	deadline := time.After(wait)
	for !strings.Contains(p.out.String(), "to see it go live.") {
		select {
		case <-p.exited:
			t.Fatalf("%s ended:\n%s\n%s", strings.Join(argv, " "), p.out, p.log)
		case <-deadline:
			t.Fatalf("no demo printout after %v; stdout:\n%s\nlog:\n%s", wait, p.out, p.log)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return p.out.String()
}

// demoEnv is this process's environment without Lectern's own variables
// (which would change what serve does), PATH starting with pathFirst when
// it is not empty.
func demoEnv(pathFirst string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LECTERN_") || (pathFirst != "" && strings.HasPrefix(kv, "PATH=")) {
			continue
		}
		env = append(env, kv)
	}
	if pathFirst != "" {
		env = append(env, "PATH="+pathFirst+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return env
}

// demoCommands returns the commands the demo printed to paste: the first
// indented lines after "Try the API".
func demoCommands(t *testing.T, out string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "Try the API")
	if !ok {
		t.Fatalf("no commands printed:\n%s", out)
	}
	var cmds []string
	for _, line := range strings.Split(rest, "\n") {
		cmd, ok := strings.CutPrefix(line, "    ")
		if !ok && cmds != nil {
			break
		}
		if ok {
			cmds = append(cmds, cmd)
		}
	}
	if len(cmds) == 0 {
		t.Fatalf("no commands printed:\n%s", out)
	}
	return cmds
}

// runShell runs script with bash -euo pipefail in dir and returns its
// output, failing the test when it fails.
func runShell(t *testing.T, dir string, env []string, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 5*time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the commands failed: %v\n--- script\n%s\n--- output\n%s", err, script, out)
	}
	return string(out)
}

// demoPages returns the shell variables the demo site's pages use, and the
// commands of their bash blocks (indentation removed).
func demoPages(t *testing.T) (vars []string, blocks []string) {
	t.Helper()
	varRE := regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`)
	blockRE := regexp.MustCompile("(?s)```bash\n(.*?)```")
	err := fs.WalkDir(os.DirFS("demosite"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".mdx") {
			return err
		}
		src, err := fs.ReadFile(os.DirFS("demosite"), path)
		if err != nil {
			return err
		}
		for _, m := range varRE.FindAllStringSubmatch(string(src), -1) {
			if !slices.Contains(vars, m[1]) {
				vars = append(vars, m[1])
			}
		}
		for _, m := range blockRE.FindAllStringSubmatch(string(src), -1) {
			var lines []string
			for line := range strings.Lines(m[1]) {
				lines = append(lines, strings.TrimLeft(line, " "))
			}
			blocks = append(blocks, strings.Join(lines, ""))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vars) == 0 || len(blocks) == 0 {
		t.Fatal("found no variables or commands in the demo's pages: has the test lost them?")
	}
	return vars, blocks
}

// TestServeDemoCommandsWork runs the installed binary's demo and pastes
// its printed commands into bash, as a user does, in a scratch folder:
// every one works as printed (the binary named by its path, as it is not
// on PATH), they export every variable the demo's pages use, and the
// pages' own commands then work in the same shell. Run again with the
// binary on PATH, the demo names it "lectern" and its commands still work.
func TestServeDemoCommandsWork(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	t.Parallel()
	bin := lecternBinary(t)
	data, scratch := t.TempDir(), t.TempDir()
	out := startDemo(t, scratch, demoEnv(""), 2*time.Minute, data, bin)
	cmds := demoCommands(t, out)

	exported := map[string]bool{}
	for _, c := range cmds {
		if m := regexp.MustCompile(`^export ([A-Za-z_][A-Za-z0-9_]*)=`).FindStringSubmatch(c); m != nil {
			exported[m[1]] = true
		}
		if strings.HasPrefix(c, "lectern ") || strings.HasPrefix(c, "go run") {
			t.Errorf("with the binary off PATH, a command does not name it by its path: %s", c)
		}
	}
	vars, blocks := demoPages(t)
	for _, v := range vars {
		if !exported[v] {
			t.Errorf("the demo's pages use $%s, which the printed commands do not export:\n%s", v, strings.Join(cmds, "\n"))
		}
	}
	if !slices.Contains(cmds, bin+` update "$PROJECT_ID" --wait`) {
		t.Errorf("no update command naming %s:\n%s", bin, strings.Join(cmds, "\n"))
	}

	// The printed lines, then the pages' commands (which say "lectern":
	// the binary is on PATH for them only).
	script := strings.Join(cmds, "\n") + "\nexport PATH=" + filepath.Dir(bin) + ":$PATH\n" + strings.Join(blocks, "\n") +
		"\ntest -s docs.tar.gz\ntest -s site.tar.gz\n"
	text := runShell(t, scratch, demoEnv(""), script)
	for _, want := range []string{`"statusId"`, "success", "sha256: ", "hello, docs"} {
		if !strings.Contains(text, want) {
			t.Errorf("the commands' output lacks %q:\n%s", want, text)
		}
	}

	// Again, with the binary on PATH: "lectern", and the key read from
	// its file.
	out = startDemo(t, scratch, demoEnv(filepath.Dir(bin)), 2*time.Minute, data, bin)
	cmds = demoCommands(t, out)
	if !slices.Contains(cmds, `lectern update "$PROJECT_ID" --wait`) || !strings.Contains(out, "export LECTERN_API_KEY=\"$(cat ") {
		t.Errorf("with the binary on PATH, the demo does not say lectern, or not where the key is:\n%s", out)
	}
	if text := runShell(t, t.TempDir(), demoEnv(filepath.Dir(bin)), strings.Join(cmds, "\n")); !strings.Contains(text, "success") {
		t.Errorf("the second run's commands: no success:\n%s", text)
	}
}

// TestServeDemoGoRun runs the demo with go run from the module's folder,
// as the README says: its commands say go run ./cmd/lectern (the binary
// go run built is gone once it ends), name the folder to run them in, and
// work there as printed; only the export writes its bundle to a scratch
// folder instead of the source folder.
func TestServeDemoGoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("go run builds the lectern command")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out := startDemo(t, root, demoEnv(""), 5*time.Minute, t.TempDir(), "go", "run", "./cmd/lectern")
	cmds := demoCommands(t, out)
	if !slices.Contains(cmds, `go run ./cmd/lectern update "$PROJECT_ID" --wait`) || !strings.Contains(out, "\nRun them in "+root+": go run ./cmd/lectern builds") {
		t.Fatalf("go run's demo does not print go run ./cmd/lectern commands to run in %s:\n%s", root, out)
	}
	bundle := filepath.Join(t.TempDir(), "docs.tar.gz")
	script := strings.ReplaceAll(strings.Join(cmds, "\n"), " --out docs.tar.gz", " --out "+bundle)
	text := runShell(t, root, demoEnv(""), script)
	if !strings.Contains(text, "success") || !strings.Contains(text, "sha256: ") {
		t.Errorf("go run's commands: no success or sha256:\n%s", text)
	}
	if fi, err := os.Stat(bundle); err != nil || fi.Size() == 0 {
		t.Errorf("no bundle: %v", err)
	}
}

// TestServeDemoGoRunLayouts: a binary where go run keeps it (its work
// folder go-build123/b001/exe, or the build cache's exe folders since Go
// 1.24) is told from an installed one whichever layout this Go uses, and
// cmd/lectern is named relative to the folder the demo runs in.
func TestServeDemoGoRunLayouts(t *testing.T) {
	t.Parallel()
	bin := lecternBinary(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	hash := "ab" + strings.Repeat("0123456789abcdef", 4)[2:]
	for name, tc := range map[string]struct{ layout, dir, want string }{
		"work folder": {"go-build1234567/b001/exe", root, "go run ./cmd/lectern update"},
		"build cache": {"ab/" + hash + "-d", filepath.Join(root, "cmd", "lectern"), "go run . update"},
		"subfolder":   {"go-build42/b001/exe", filepath.Join(root, "docs"), "go run ../cmd/lectern update"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			copied := filepath.Join(t.TempDir(), tc.layout, "lectern")
			copyExecutable(t, bin, copied)
			out := startDemo(t, tc.dir, demoEnv(""), 2*time.Minute, t.TempDir(), copied)
			if !strings.Contains(out, "\n    "+tc.want+` "$PROJECT_ID" --wait`) || !strings.Contains(out, "\nRun them in "+tc.dir+": ") {
				t.Errorf("binary in %s, run in %s: want %q:\n%s", tc.layout, tc.dir, tc.want, out)
			}
		})
	}
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	// A process the test forked meanwhile (tests run in parallel) holds
	// the written file open until it runs its own program, and running
	// the copy fails with "text file busy" until then: wait for that.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		err := exec.Command(to, "--version").Run()
		if !errors.Is(err, syscall.ETXTBSY) || time.Now().After(deadline) {
			return
		}
	}
}

package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// walkthrough returns the README's five-minute walkthrough: the shell
// block after the walkthrough marker.
func walkthrough(t *testing.T) string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "<!-- walkthrough:")
	if i < 0 {
		t.Fatal("README.md has no walkthrough marker")
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	end := strings.Index(s[start+6:], "\n```")
	if start < 0 || end < 0 {
		t.Fatal("no shell block after the walkthrough marker")
	}
	return s[start+6 : start+6+end+1]
}

// TestReadmeWalkthrough runs the README's walkthrough as a user does:
// the lectern binary on PATH, lectern serve started in a scratch folder,
// and the block run, line for line, by bash in that folder. Only the two
// addresses on its first lines are replaced by free ports. Any command
// that fails (the greps that check pages included) fails the test.
func TestReadmeWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	t.Parallel()
	script := walkthrough(t)
	bin := lecternBinary(t)
	dir := t.TempDir()
	apiAddr, selfAddr := freeAddr(t), freeAddr(t)
	for _, sub := range []struct{ re, with string }{
		{`(?m)^export LECTERN_API_URL=http://127\.0\.0\.1:8080`, "export LECTERN_API_URL=http://" + apiAddr},
		{`(?m)^SELFHOST_ADDR=127\.0\.0\.1:8090`, "SELFHOST_ADDR=" + selfAddr},
	} {
		re := regexp.MustCompile(sub.re)
		if !re.MatchString(script) {
			t.Fatalf("the walkthrough no longer starts with a line matching %s", sub.re)
		}
		script = re.ReplaceAllString(script, sub.with)
	}

	// lectern serve, started in the scratch folder as the README says.
	serve := exec.Command(bin, "serve", "--addr", apiAddr)
	serve.Dir = dir
	logs := &syncBuffer{}
	serve.Stdout, serve.Stderr = logs, logs
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	t.Cleanup(func() {
		serve.Process.Kill()
		<-exited
	})
	waitHealthy(t, "http://"+apiAddr, exited)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README walkthrough failed: %v\n--- output\n%s\n--- server log\n%s", err, out, logs)
	}
	text := string(out)
	if n := strings.Count(text, "Install the <code>acme</code> CLI"); n != 2 {
		t.Errorf("the page was checked %d times (live site and self-hosted copy), want 2:\n%s", n, text)
	}
	for _, want := range []string{"success", "sha256: ", "bundleUrl: ", "configuration lectern.yaml is valid"} {
		if !strings.Contains(text, want) {
			t.Errorf("walkthrough output lacks %q:\n%s", want, text)
		}
	}
	if key, err := os.ReadFile(filepath.Join(dir, "ci.key")); err != nil || !strings.HasPrefix(string(key), "lct_") {
		t.Errorf("ci.key = %q, %v", key, err)
	} else if strings.Contains(text, strings.TrimSpace(string(key))) || strings.Contains(logs.String(), strings.TrimSpace(string(key))) {
		t.Error("the API key was printed")
	}
}

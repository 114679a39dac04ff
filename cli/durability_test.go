package cli_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc is a lectern serve running as a separate process.
type proc struct {
	cmd    *exec.Cmd
	logs   *syncBuffer
	exited chan struct{} // closed when the process has exited
	err    error         // its exit status, set before exited closes
	done   chan error    // receives the exit status once, for waitHealthy
}

func startProc(t *testing.T, bin, addr, data string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--data-dir", data, "--job-lease", "2s", "--shutdown-timeout", "1s", "--rate-limit", "1000"}, extra...)
	cmd := exec.Command(bin, args...)
	logs := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, logs: logs, exited: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
		p.done <- p.err
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
	})
	waitHealthy(t, "http://"+addr, p.done)
	return p
}

// waitRunning polls until the export is running with some progress.
func waitRunning(t *testing.T, base, key, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		_, j, _ := call(t, "GET", base+"/v1/static-export/jobs/"+id, key, nil)
		if j["status"] == "running" && j["progress"].(float64) > 0 {
			return
		}
		if j["status"] == "completed" || j["status"] == "failed" {
			t.Fatalf("export finished before it could be interrupted: %v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("export never ran")
}

// TestJobsSurviveKillAndStop kills the server with SIGKILL in the middle of
// an export, restarts it, and checks the export completes with no manual
// step; then stops it gracefully with SIGTERM mid-export and checks the job
// is given back and completed by the next process.
func TestJobsSurviveKillAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	bin := lecternBinary(t)
	corpus, _ := filepath.Abs("../../shared/corpus/mintlify-starter")
	repo := corpusRepo(t, corpus)
	data := t.TempDir()
	addr := freeAddr(t)
	base := "http://" + addr
	slow := []string{"--render-page-delay", "150ms"}

	p := startProc(t, bin, addr, data, slow...)
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs", "--repo", repo, "--domain", "docs.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	if st := waitUpdate(t, base, key, trigger(t, base, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}

	_, job, _ := call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.acme.test"})
	id := job["jobId"].(string)
	waitRunning(t, base, key, id)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	t.Log("killed mid-export; restarting")
	p = startProc(t, bin, addr, data, slow...)
	final := pollExport(t, base, key, id, false)
	if final["status"] != "completed" || final["pageCount"].(float64) != 18 { // 17 navigation pages and SOURCE.md, unlisted
		t.Fatalf("after SIGKILL: %v\n%s", final, p.logs.String())
	}
	download(t, bundleLink(t, base, key, id), "docs.acme.test-export-")
	if !strings.Contains(p.logs.String(), "attempt=2") {
		t.Errorf("the job was not taken over as a second attempt:\n%s", p.logs.String())
	}

	_, job, _ = call(t, "POST", base+"/v1/static-export/jobs", key, map[string]any{"domain": "docs.acme.test"})
	id2 := job["jobId"].(string)
	waitRunning(t, base, key, id2)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		if p.err != nil {
			t.Fatalf("SIGTERM exit: %v\n%s", p.err, p.logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop after SIGTERM")
	}
	if !strings.Contains(p.logs.String(), "job given back to the queue") {
		t.Fatalf("SIGTERM did not give the running job back:\n%s", p.logs.String())
	}
	p = startProc(t, bin, addr, data)
	if final := pollExport(t, base, key, id2, false); final["status"] != "completed" {
		t.Fatalf("after SIGTERM: %v\n%s", final, p.logs.String())
	}
}

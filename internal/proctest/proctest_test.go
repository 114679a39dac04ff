package proctest

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReadsAChild starts a sleep at nice 5 and finds it among this
// process's children, with its command line and nice value, alive until
// it is killed.
func TestReadsAChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	own, ok := Nice(os.Getpid())
	if !ok {
		t.Fatal("this process's nice value was not read")
	}
	cmd := exec.Command("nice", "-n", "5", "sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no nice or sleep here: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	// nice execs sleep in the same process.
	var line string
	for range 200 {
		if line = Children(os.Getpid())[pid]; strings.HasPrefix(line, "sleep") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if line != "sleep 30" {
		t.Fatalf("child %d's command line %q, want \"sleep 30\" (children %v)", pid, line, Children(os.Getpid()))
	}
	want := min(own+5, 19)
	if n, ok := Nice(pid); !ok || n != want {
		t.Errorf("Nice = %d, %v; want %d", n, ok, want)
	}
	for _, n := range ThreadNices(pid) {
		if n != want {
			t.Errorf("ThreadNices = %v, want all %d", ThreadNices(pid), want)
			break
		}
	}
	if !Alive(pid) {
		t.Error("a sleeping child is not alive")
	}
	cmd.Process.Kill() // (not waited for: a zombie until the cleanup)
	for range 200 {
		if !Alive(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Error("a killed child is still alive")
}

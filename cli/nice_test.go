package cli_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern/internal/proctest"
)

// renderNices returns the nice values of the render processes (lectern
// internal-build) of the server pid.
func renderNices(pid int) []int {
	var out []int
	for kid, cmd := range proctest.Children(pid) {
		if n, ok := proctest.Nice(kid); ok && strings.Contains(cmd, "internal-build") {
			out = append(out, n)
		}
	}
	return out
}

// TestBacklogRendersYieldTheCPU: on a server of three workers, the render
// of organization A's second update (claimed while its first ran) runs
// at a lower CPU priority (nice 10), A's first and organization B's one
// at the server's: a backlog's renders yield the CPU to another
// organization's first.
func TestBacklogRendersYieldTheCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	t.Parallel()
	bin := lecternBinary(t)
	data := t.TempDir()
	addr := freeAddr(t)
	repo, _ := newRepo(t, slowSite(30))
	srv := startProc(t, bin, addr, data, "--workers", "3", "--update-page-delay", "200ms", "--build-timeout", "1m")
	base := "http://" + addr
	a := newTenant(t, bin, data, "A", repo, "a.test")
	out, err := runBin(bin, "admin", "--data-dir", data, "project", "create", "--org", a.org, "--name", "A2", "--repo", repo, "--domain", "a2.test")
	if err != nil {
		t.Fatalf("project create: %v\n%s", err, out)
	}
	a2 := lastLine(out)
	b := newTenant(t, bin, data, "B", repo, "b.test")

	// waitRenders waits for the renders running to have the nice values
	// want (sorted), and returns the last ones seen: a render lowers its
	// priority once it has read its request.
	waitRenders := func(want []int) []int {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			vals := renderNices(srv.cmd.Process.Pid)
			slices.Sort(vals)
			if slices.Equal(vals, want) || time.Now().After(deadline) {
				return vals
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	own, _ := proctest.Nice(os.Getpid()) // (the server's renders start from it)
	trigger(t, base, a.key, a.project)
	if got, want := waitRenders([]int{own}), []int{own}; !slices.Equal(got, want) {
		t.Fatalf("A's first render runs at nice %v, want %v", got, want)
	}
	trigger(t, base, a.key, a2)
	if got, want := waitRenders([]int{own, min(own+10, 19)}), []int{own, min(own+10, 19)}; !slices.Equal(got, want) {
		t.Errorf("A's two renders run at nice %v, want %v", got, want)
	}
	trigger(t, base, b.key, b.project)
	if got, want := waitRenders([]int{own, own, min(own+10, 19)}), []int{own, own, min(own+10, 19)}; !slices.Equal(got, want) {
		t.Errorf("A's two renders and B's run at nice %v, want %v (B's at the server's)", got, want)
	}
}

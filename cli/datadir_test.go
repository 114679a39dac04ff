package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wantMode fails unless path has permission bits want.
func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
	} else if fi.Mode().Perm() != want {
		t.Errorf("%s has mode %v, want %v", path, fi.Mode().Perm(), want)
	}
}

// wantPrivateTree fails for any folder under dir that is not 0700 and any
// file that is not 0600; it returns the number of files.
func wantPrivateTree(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Error(err)
			return nil
		}
		if d.IsDir() {
			wantMode(t, p, 0o700)
		} else {
			wantMode(t, p, 0o600)
			n++
		}
		return nil
	})
	return n
}

// The lectern binary creates its data folder for its owner alone: the
// folder, the database and its -wal and -shm files, the secret key, and
// every blob a deployment writes.
func TestDataFolderPrivate(t *testing.T) {
	t.Parallel()
	bin := lecternBinary(t)
	data := filepath.Join(t.TempDir(), "lectern-data")
	addr := freeAddr(t)
	p := startProc(t, bin, addr, data)
	base := "http://" + addr
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme", "--plan", "enterprise"))
	repo, _ := newRepo(t, smallSite("Private files."))
	prj := lastLine(lectern(t, "admin", "--data-dir", data, "project", "create", "--org", org, "--name", "Docs",
		"--repo", repo, "--domain", "modes.acme.test"))
	key := lastLine(lectern(t, "admin", "--data-dir", data, "key", "create", "--org", org, "--name", "ci"))
	if st := waitUpdate(t, base, key, trigger(t, base, key, prj)); st["status"] != "success" {
		t.Fatalf("update: %v", st)
	}
	wantMode(t, data, 0o700)
	for _, name := range []string{"lectern.db", "lectern.db-wal", "lectern.db-shm", "secret.key"} {
		wantMode(t, filepath.Join(data, name), 0o600)
	}
	if n := wantPrivateTree(t, filepath.Join(data, "blobs")); n < 5 {
		t.Errorf("only %d blobs under %s: the deployment wrote no site", n, data)
	}
	if strings.Contains(p.logs.String(), "tightened") {
		t.Errorf("a fresh data folder was tightened: %s", p.logs.String())
	}
}

// A data folder that others can read, left by an earlier release, is
// tightened at start, with one log line; the next start has nothing to do.
func TestDataFolderTightened(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	lectern(t, "admin", "--data-dir", data, "org", "list")
	wantMode(t, data, 0o700)
	wantMode(t, filepath.Join(data, "lectern.db"), 0o600)
	wantMode(t, filepath.Join(data, "secret.key"), 0o600)

	site := filepath.Join(data, "blobs", "sites", "prj_1", "dep_1", "site")
	os.MkdirAll(site, 0o755)
	os.WriteFile(filepath.Join(site, "index.html"), []byte("<p>docs</p>"), 0o644)
	os.WriteFile(filepath.Join(site, "index.html.attrs"), []byte("{}"), 0o666)
	// Not Lectern's: left alone (the 0700 data folder closes it to others).
	notes := filepath.Join(data, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	for path, mode := range map[string]fs.FileMode{data: 0o755, filepath.Join(data, "lectern.db"): 0o644,
		filepath.Join(data, "secret.key"): 0o644, filepath.Join(data, "blobs"): 0o777} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	_, errs, err := run("", "admin", "--data-dir", data, "org", "list")
	if err != nil {
		t.Fatal(err, errs)
	}
	if strings.Count(errs, "tightened") != 1 || !strings.Contains(errs, "folders=6") || !strings.Contains(errs, "files=4") || !strings.Contains(errs, data) {
		t.Errorf("start log %q: want one line saying 6 folders and 4 files under %s were tightened", errs, data)
	}
	wantMode(t, data, 0o700)
	wantMode(t, filepath.Join(data, "lectern.db"), 0o600)
	wantMode(t, filepath.Join(data, "secret.key"), 0o600)
	wantPrivateTree(t, filepath.Join(data, "blobs"))
	wantMode(t, notes, 0o644)

	if _, errs, _ := run("", "admin", "--data-dir", data, "org", "list"); strings.Contains(errs, "tightened") {
		t.Errorf("second start tightened again: %q", errs)
	}
}

// selfhost's cache folder is its owner's alone: a new one is created 0700,
// and a looser one is tightened with a log line.
func TestSelfhostCachePrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lectern.yaml")
	os.WriteFile(cfg, []byte(`deployment: {type: client-hosted}
staticExport: {enabled: true, bundleUrl: "http://`+freeAddr(t)+`/_lectern/download/exports/exp_1/1/b.tar.gz?expires=1000000000&nonce=n&signature=s"}
`), 0o644)
	fresh, loose := filepath.Join(dir, "cache-new"), filepath.Join(dir, "cache-loose")
	os.Mkdir(loose, 0o755)
	for _, cache := range []string{fresh, loose} {
		// The link has expired: the runtime stops after opening its cache.
		_, stderr, err := runSelfhost(t, nil, "--config", cfg, "--cache-dir", cache, "--addr", freeAddr(t))
		if err == nil {
			t.Fatal("selfhost started without its bundle")
		}
		wantMode(t, cache, 0o700)
		if tightened := strings.Contains(stderr, "tightened"); tightened != (cache == loose) {
			t.Errorf("cache %s: log %q; want a line saying it was tightened only for the loose one", cache, stderr)
		}
	}
}

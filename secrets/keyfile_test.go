package secrets

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadKeyFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o600)
		return p
	}
	if k, err := ReadKeyFile(write("ok", "  lct_secret123 \n")); err != nil || k != "lct_secret123" {
		t.Fatalf("%q %v", k, err)
	}
	for name, c := range map[string]struct{ content, want string }{
		"empty": {"\n \n", "is empty"},
		"lines": {"sk-one\nsk-two\n", "must hold the key alone"},
		"large": {strings.Repeat("k", MaxKeyFile+1), "larger than a key file"},
	} {
		_, err := ReadKeyFile(write(name, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "sk-") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadKeyFile(filepath.Join(dir, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

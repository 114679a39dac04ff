package render

import (
	"io/fs"
	"os"
	"path"
	"sort"

	"lectern.dev/lectern"
)

// DirOutput writes files under the folder Dir, creating it and any parent
// folders as needed.
type DirOutput struct{ Dir string }

// WriteFile writes data to name under d.Dir. It refuses, with an EINVALID
// error, a name that is not a clean relative slash-separated path (absolute,
// with "..", "." or empty segments) and, through os.Root, one that would
// leave Dir by a symbolic link; other errors are the file system's.
func (d DirOutput) WriteFile(name string, data []byte) error {
	if !fs.ValidPath(name) || name == "." {
		return lectern.Errorf(lectern.EINVALID, "render: refusing to write %q outside the output folder", name)
	}
	if d.Dir == "" {
		return lectern.Errorf(lectern.EINVALID, "render: DirOutput has no folder")
	}
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(d.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return root.WriteFile(name, data, 0o644)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

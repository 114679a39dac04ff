package render

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// renderLayers is the order of the renderer's packages (doc.go): a
// package may import only packages of lower layers.
var renderLayers = map[string]int{
	"diag": 0, "limits": 0, "output": 0, "highlight": 0, "icons": 0, "safe": 0, "openapi": 0, "features": 0,
	"mdx": 1, "config": 1, "search": 1,
	"links": 2, "markdown": 2, "page": 2,
	"components": 3, "layout": 3, "cache": 3, "pagemd": 3,
	".": 4,
}

// TestRenderLayers checks that the packages of render import only
// downwards, that each has a package comment, and that no file is far
// over 500 lines.
func TestRenderLayers(t *testing.T) {
	t.Parallel()
	const prefix = "lectern.dev/lectern/render/"
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{".": true}
	for _, d := range dirs {
		if gofiles, _ := filepath.Glob(filepath.Join(d.Name(), "*.go")); d.IsDir() && len(gofiles) > 0 {
			seen[d.Name()] = true
		}
	}
	for pkg := range seen {
		layer, ok := renderLayers[pkg]
		if !ok {
			t.Errorf("render/%s has no layer in renderLayers (layers_test.go) and doc.go's map", pkg)
			continue
		}
		files, _ := filepath.Glob(filepath.Join(pkg, "*.go"))
		documented := false
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(data), "\n"); n > 550 {
				t.Errorf("%s has %d lines: split it along its seams", f, n)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, data, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc != nil && strings.HasPrefix(af.Doc.Text(), "Package ") {
				documented = true
			}
			for _, imp := range af.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				dep, ok := strings.CutPrefix(p, prefix)
				if !ok {
					continue
				}
				dep, _, _ = strings.Cut(dep, "/")
				if l, known := renderLayers[dep]; !known || l >= layer {
					t.Errorf("%s imports render/%s (layer %d), not below its own layer %d", f, dep, l, layer)
				}
			}
		}
		if !documented && len(files) > 0 {
			t.Errorf("render/%s has no package comment", pkg)
		}
	}
}

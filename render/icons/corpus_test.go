package icons

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// corpusDir holds the shared corpora of real Mintlify sites, read in
// place (../shared/corpus from the repository's root).
const corpusDir = "../../../shared/corpus"

var (
	// iconAttrRE matches an icon attribute of a component, with the
	// iconType that may follow it in the same tag.
	iconAttrRE = regexp.MustCompile(`<[A-Z][A-Za-z]*\b[^<>]*?\bicon=(?:"([^"]*)"|'([^']*)'|\{"([^"]*)"\})[^<>]*?>`)
	iconTypeRE = regexp.MustCompile(`\biconType=(?:"([^"]*)"|'([^']*)'|\{"([^"]*)"\})`)
	// fenceRE matches fenced code, whose examples are not rendered.
	fenceRE = regexp.MustCompile("(?ms)^[ \t]*(```|~~~).*?^[ \t]*(```|~~~)[ \t]*$")
	frontRE = regexp.MustCompile(`(?m)\A---\n(?:.*\n)*?icon:\s*["']?([^"'\n]+?)["']?\s*\n(?:.*\n)*?---\n`)
)

// TestCorpusIconNames resolves every icon name the corpora use (components'
// icon attributes with their iconType, front matter, docs.json) with the
// library each one's docs.json chooses.
func TestCorpusIconNames(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpusDir, "*", "docs.json"))
	if len(dirs) == 0 {
		t.Skipf("no corpus under %s", corpusDir)
	}
	for _, cfg := range dirs {
		root := filepath.Dir(cfg)
		t.Run(filepath.Base(root), func(t *testing.T) {
			lib, names := corpusIcons(t, root)
			var missing []string
			n := 0
			for key, where := range names {
				name, style, _ := strings.Cut(key, "\x00")
				n++
				if !lib.Resolves(name, style) {
					missing = append(missing, name+" ("+style+") in "+where)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%d of %d icon names do not resolve with library %s:\n%s", len(missing), n, lib, strings.Join(missing, "\n"))
			}
			t.Logf("%d icon names, library %s", n, lib)
		})
	}
}

// corpusIcons returns the library of the site at root and its icon names,
// keyed "name\x00iconType", with a file that uses each.
func corpusIcons(t *testing.T, root string) (Library, map[string]string) {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // WalkDir does not follow a link
	}
	names := map[string]string{}
	add := func(name, style, file string) {
		name = strings.TrimSpace(name)
		if name != "" && !IsPath(name) && !strings.Contains(name, "{") {
			names[name+"\x00"+style] = file
		}
	}
	data, err := os.ReadFile(filepath.Join(root, "docs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	lib := FontAwesome
	if m, ok := cfg.(map[string]any); ok {
		if ic, ok := m["icons"].(map[string]any); ok {
			s, _ := ic["library"].(string)
			lib, _ = ParseLibrary(s)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "icon" {
					add(s, "", "docs.json")
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(cfg)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".mdx") && !strings.HasSuffix(p, ".md")) {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := fenceRE.ReplaceAllString(strings.ReplaceAll(string(src), "\r\n", "\n"), "")
		rel, _ := filepath.Rel(root, p)
		if m := frontRE.FindStringSubmatch(text); m != nil {
			add(m[1], "", rel)
		}
		for _, m := range iconAttrRE.FindAllStringSubmatch(text, -1) {
			style := ""
			if tm := iconTypeRE.FindStringSubmatch(m[0]); tm != nil {
				style = tm[1] + tm[2] + tm[3]
			}
			add(m[1]+m[2]+m[3], style, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lib, names
}

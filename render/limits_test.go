package render

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/limits"
)

// yamlBomb is an OpenAPI document whose nested aliases stand for 10^9
// values in a few hundred bytes.
func yamlBomb() string {
	var b strings.Builder
	b.WriteString("openapi: 3.1.0\ninfo: {title: Bomb, version: '1'}\nx-a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "x-a%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	b.WriteString("paths:\n  /boom:\n    get:\n      summary: Boom\n      x-boom: *a9\n      responses: {'200': {description: ok}}\n")
	return b.String()
}

// snippetBomb is a page using a snippet that uses the next one ten
// times, nine levels deep: 10^9 snippet renders.
func snippetBomb() fstest.MapFS {
	fsys := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "Bomb", "navigation": {"pages": ["index"]}}`)},
		"index.mdx": {Data: []byte("---\ntitle: Bomb\n---\nimport S0 from '/snippets/s0.mdx';\n\n<S0 />\n")},
		"s9.mdx":    {Data: []byte("boom ")},
	}
	for i := 0; i < 9; i++ {
		body := fmt.Sprintf("import S%d from '/snippets/s%d.mdx';\n\n%s\n", i+1, i+1, strings.Repeat(fmt.Sprintf("<S%d />\n", i+1), 10))
		fsys[fmt.Sprintf("snippets/s%d.mdx", i)] = &fstest.MapFile{Data: []byte(body)}
	}
	fsys["snippets/s9.mdx"] = fsys["s9.mdx"]
	delete(fsys, "s9.mdx")
	return fsys
}

// buildErr builds fsys and returns the limit error Build must end with.
func buildLimitErr(t *testing.T, fsys fstest.MapFS, opts Options, limit string) *limits.Error {
	t.Helper()
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = Build(context.Background(), fsys, newMemOutput(), opts)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("Build did not end: the %s limit did not stop it", limit)
	}
	le := limits.AsError(err)
	if le == nil {
		t.Fatalf("Build = %v, want a limit error for %s", err, limit)
	}
	if le.Limit != limit {
		t.Fatalf("limit %q (%v), want %q", le.Limit, err, limit)
	}
	if lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("code %q, want %q so that the update fails at once", lectern.ErrorCode(err), lectern.EINVALID)
	}
	if !strings.Contains(err.Error(), limit) {
		t.Errorf("message %q does not name the limit %s", err, limit)
	}
	return le
}

func TestLimitYAMLAliases(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"docs.json":    {Data: []byte(`{"name": "Bomb", "navigation": {"pages": ["index"]}}`)},
		"index.mdx":    {Data: []byte("---\ntitle: Home\nopenapi: GET /boom\n---\n")},
		"openapi.yaml": {Data: []byte(yamlBomb())},
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	le := buildLimitErr(t, fsys, Options{}, limits.MaxYAMLValues)
	if le.File != "openapi.yaml" {
		t.Errorf("file %q, want openapi.yaml", le.File)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<30 {
		t.Errorf("heap grew by %d MiB", grew>>20)
	}
	// The same bomb in a file named by a $ref.
	fsys["openapi.yaml"] = &fstest.MapFile{Data: []byte("openapi: 3.1.0\ninfo: {title: A, version: '1'}\npaths:\n  /boom:\n    get:\n      summary: Boom\n      responses: {'200': {$ref: 'more.yaml#/x-a9'}}\n")}
	fsys["more.yaml"] = &fstest.MapFile{Data: []byte(yamlBomb())}
	if le := buildLimitErr(t, fsys, Options{}, limits.MaxYAMLValues); le.File != "more.yaml" {
		t.Errorf("file %q, want more.yaml", le.File)
	}
}

func TestLimitSnippetExpansion(t *testing.T) {
	t.Parallel()
	le := buildLimitErr(t, snippetBomb(), Options{}, limits.MaxExpansions)
	if le.File != "index.mdx" {
		t.Errorf("file %q, want the page index.mdx", le.File)
	}
	// A real page using snippets many times stays under the limit.
	fsys := snippetBomb()
	fsys["snippets/s2.mdx"] = &fstest.MapFile{Data: []byte("leaf ")}
	if _, err := Build(context.Background(), fsys, newMemOutput(), Options{}); err != nil {
		t.Fatalf("a page of 111 snippet uses: %v", err)
	}
}

func TestLimitFileSize(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 4096)
	for _, name := range []string{"index.mdx", "images/big.png", "openapi.json", "docs.json", "snippets/big.mdx"} {
		t.Run(name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"docs.json":        {Data: []byte(`{"name": "Big", "navigation": {"pages": ["index"]}}`)},
				"index.mdx":        {Data: []byte("---\ntitle: Home\n---\nimport Big from '/snippets/big.mdx';\n\n<Big />\n")},
				"snippets/big.mdx": {Data: []byte("small")},
			}
			if name == "docs.json" {
				fsys[name] = &fstest.MapFile{Data: []byte(`{"name": "` + big + `", "navigation": {"pages": ["index"]}}`)}
			} else {
				fsys[name] = &fstest.MapFile{Data: []byte(big)}
			}
			le := buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxFileBytes: 1024}}, limits.MaxFileSize)
			if le.File != name {
				t.Errorf("file %q, want %s", le.File, name)
			}
		})
	}
}

func TestLimitPagesFilesAndOutput(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{}
	var nav []string
	for i := range 50 {
		name := fmt.Sprintf("p%02d", i)
		nav = append(nav, `"`+name+`"`)
		fsys[name+".mdx"] = &fstest.MapFile{Data: []byte("---\ntitle: Page " + name + "\n---\n" + strings.Repeat("Some text. ", 100))}
	}
	fsys["docs.json"] = &fstest.MapFile{Data: []byte(`{"name": "Many", "navigation": {"pages": [` + strings.Join(nav, ",") + `]}}`)}
	if le := buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxPages: 49}}, limits.MaxPages); le.File != "docs.json" {
		t.Errorf("file %q, want docs.json", le.File)
	}
	buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxFiles: 20}}, limits.MaxFiles)
	buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxSourceBytes: 10 << 10}}, limits.MaxSourceSize)
	buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxOutputBytes: 100 << 10}}, limits.MaxOutputSize)
	buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxPageBytes: 1 << 10}}, limits.MaxPageSize)
	// The same site within its limits, and with limits turned off.
	for _, l := range []limits.Limits{{MaxPages: 50, MaxFiles: 51}, {MaxPages: -1, MaxFiles: -1, MaxOutputBytes: -1}} {
		if _, err := Build(context.Background(), fsys, newMemOutput(), Options{Limits: l}); err != nil {
			t.Errorf("limits %+v: %v", l, err)
		}
	}
}

// Redirects write files of their own: a configuration cannot make a site
// of more files than its source, pages and a few of the build's.
func TestLimitOutputFiles(t *testing.T) {
	t.Parallel()
	var redirects []string
	for i := range 300 {
		redirects = append(redirects, fmt.Sprintf(`{"source": "/old/r%d", "destination": "/index"}`, i))
	}
	fsys := fstest.MapFS{
		"docs.json": {Data: []byte(`{"name": "R", "navigation": {"pages": ["index"]}, "redirects": [` + strings.Join(redirects, ",") + `]}`)},
		"index.mdx": {Data: []byte("---\ntitle: Home\n---\nHi\n")},
	}
	le := buildLimitErr(t, fsys, Options{Limits: limits.Limits{MaxFiles: 100, MaxPages: 50}}, limits.MaxFiles)
	if le.File != "docs.json" {
		t.Errorf("limit error names %q, want docs.json", le.File)
	}
	if _, err := Build(context.Background(), fsys, newMemOutput(), Options{}); err != nil {
		t.Errorf("the default limits: %v", err)
	}
}

// The folder of the build's own files is reserved in any case.
func TestReservedFolderAnyCase(t *testing.T) {
	t.Parallel()
	res, out := build(t, "-- docs.json --\n{\"navigation\": {\"pages\": [\"index\"]}}\n-- index.mdx --\nhi\n-- _Lectern/x.js --\nalert(1)\n-- _LECTERN/custom/y.js --\nalert(2)\n",
		Options{CustomScripts: true})
	for name := range out.files {
		if strings.EqualFold(name, "_lectern/x.js") || strings.HasSuffix(strings.ToLower(name), "custom/y.js") || strings.Contains(name, "_Lectern") {
			t.Errorf("the source's %s was written", name)
		}
	}
	if !strings.Contains(fmt.Sprint(res.Warnings), "_Lectern/x.js: not copied") {
		t.Errorf("no warning for _Lectern/x.js: %v", res.Warnings)
	}
}

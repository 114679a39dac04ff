package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/config"
	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/mdx"
	"lectern.dev/lectern/render/page"
)

// bigSite returns a site of tabs × groups × perGroup pages with code,
// tables, components, a snippet import, links and some content warnings.
func bigSite(tabs, groups, perGroup int) fstest.MapFS {
	fsys := fstest.MapFS{}
	var nav strings.Builder
	nav.WriteString(`{"name":"Big","navigation":{"tabs":[`)
	n := 0
	for t := range tabs {
		if t > 0 {
			nav.WriteString(",")
		}
		fmt.Fprintf(&nav, `{"tab":"Tab %d","groups":[`, t)
		for g := range groups {
			if g > 0 {
				nav.WriteString(",")
			}
			fmt.Fprintf(&nav, `{"group":"Group %d-%d","pages":[`, t, g)
			for i := range perGroup {
				if i > 0 {
					nav.WriteString(",")
				}
				p := fmt.Sprintf("t%d/p%03d", t, n)
				fmt.Fprintf(&nav, "%q", p)
				var body strings.Builder
				fmt.Fprintf(&body, "---\ntitle: Page %d\n---\n\n", n)
				if n%7 == 0 {
					body.WriteString("import Shared from '/snippets/shared.mdx'\n\n<Shared />\n\n")
				}
				fmt.Fprintf(&body, "Intro of page %d, see [next](/t%d/p%03d) and [missing](/nowhere-%d).\n\n", n, t, n+1, n%5)
				body.WriteString("## Setup\n\n```go\nfunc main() { println(\"hi\") }\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n<Note>Careful **now**.</Note>\n\n")
				if n == 3 {
					body.WriteString("```mermaid\ngraph TD; A-->B\n```\n\n")
				}
				if n%11 == 0 {
					body.WriteString("<Unknown>child</Unknown>\n\n")
				}
				fsys[p+".mdx"] = &fstest.MapFile{Data: []byte(body.String())}
				n++
			}
			nav.WriteString("]}")
		}
		nav.WriteString("]}")
	}
	nav.WriteString("]}}")
	fsys["docs.json"] = &fstest.MapFile{Data: []byte(nav.String())}
	fsys["snippets/shared.mdx"] = &fstest.MapFile{Data: []byte("Shared text with <Bogus />.\n")}
	fsys["logo.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	return fsys
}

func TestParallelBuildDeterministic(t *testing.T) {
	t.Parallel()
	fsys := bigSite(3, 4, 10)
	for _, export := range []bool{false, true} {
		var outs []*memOutput
		var results []*Result
		for range 3 {
			out := newMemOutput()
			res, err := Build(context.Background(), fsys, out, Options{Export: export})
			if err != nil {
				t.Fatal(err)
			}
			outs, results = append(outs, out), append(results, res)
		}
		if len(results[0].Warnings) == 0 {
			t.Fatal("the site should have warnings")
		}
		for k := 1; k < len(outs); k++ {
			if !reflect.DeepEqual(results[0].Warnings, results[k].Warnings) {
				t.Fatalf("export=%v: warnings differ between builds:\n%v\n%v", export, results[0].Warnings, results[k].Warnings)
			}
			if len(outs[0].files) != len(outs[k].files) {
				t.Fatalf("export=%v: %d files vs %d", export, len(outs[0].files), len(outs[k].files))
			}
			for name, data := range outs[0].files {
				if !bytes.Equal(data, outs[k].files[name]) {
					t.Fatalf("export=%v: %s differs between two builds", export, name)
				}
			}
		}
	}
}

// TestParallelMatchesSequential checks that the workers change nothing: a
// build with one worker (page by page) gives the same files and warnings.
func TestParallelMatchesSequential(t *testing.T) {
	t.Parallel()
	fsys := bigSite(2, 3, 8)
	par := newMemOutput()
	resPar, err := Build(context.Background(), fsys, par, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Render page by page through the same code, without workers.
	s := &site{src: fsys, opts: Options{}, out: newMemOutput(), w: &diag.Warner{},
		pages: map[string]*page.Page{}, entries: map[string]config.NavEntry{}, files: map[string]bool{}, mods: map[string]*mdx.Module{}}
	if err := s.load(); err != nil {
		t.Fatal(err)
	}
	for _, p := range s.order {
		data, _ := s.renderPage(p, p.Path+".html")
		if got := par.files[p.Path+".html"]; !bytes.Equal(got, data) {
			t.Fatalf("%s: parallel output differs from a sequential render", p.Path)
		}
	}
	seq := s.w.Sorted()
	var got []diag.Warning
	for _, w := range resPar.Warnings {
		if w.File != "docs.json" {
			got = append(got, w)
		}
	}
	var want []diag.Warning
	for _, w := range seq {
		if w.File != "docs.json" {
			want = append(want, w)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("warnings differ:\nparallel:   %v\nsequential: %v", got, want)
	}
}

func TestParallelProgressMonotonic(t *testing.T) {
	t.Parallel()
	fsys := bigSite(2, 5, 10)
	var calls [][2]int
	res, err := Build(context.Background(), fsys, newMemOutput(), Options{Progress: func(done, total int) {
		calls = append(calls, [2]int{done, total}) // Build calls it from its own goroutine
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != res.Pages+1 {
		t.Fatalf("%d progress calls for %d pages", len(calls), res.Pages)
	}
	for i, c := range calls {
		if c != [2]int{i, res.Pages} {
			t.Fatalf("call %d is %v, want [%d %d]", i, c, i, res.Pages)
		}
	}
}

// cancelOutput cancels the build's context after n files.
type cancelOutput struct {
	*memOutput
	n      int
	cancel context.CancelFunc
	writes atomic.Int32
}

func (c *cancelOutput) WriteFile(name string, data []byte) error {
	if int(c.writes.Add(1)) == c.n {
		c.cancel()
	}
	return c.memOutput.WriteFile(name, data)
}

func TestParallelCancel(t *testing.T) {
	t.Parallel()
	fsys := bigSite(2, 5, 10)
	t.Run("during", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := &cancelOutput{memOutput: newMemOutput(), n: 5, cancel: cancel}
		var last int
		_, err := Build(ctx, fsys, out, Options{Progress: func(done, total int) { last = done }})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// The page being written when it is cancelled gets its Markdown too.
		if last > 5 || len(out.files) > 6 {
			t.Fatalf("the build went on after cancellation: progress %d, %d files", last, len(out.files))
		}
	})
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		out := newMemOutput()
		if _, err := Build(ctx, fsys, out, Options{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if len(out.files) != 0 {
			t.Fatalf("%d files written", len(out.files))
		}
	})
	t.Run("write error", func(t *testing.T) {
		t.Parallel()
		boom := errors.New("disk full")
		_, err := Build(context.Background(), fsys, failOutput{after: 3, err: boom, n: new(atomic.Int32)}, Options{})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
	})
}

type failOutput struct {
	after int
	err   error
	n     *atomic.Int32
}

func (f failOutput) WriteFile(name string, data []byte) error {
	if int(f.n.Add(1)) > f.after {
		return f.err
	}
	return nil
}

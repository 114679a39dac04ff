package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// oneGroupSite is a site of n tiny pages in one sidebar group.
func oneGroupSite(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	var nav strings.Builder
	for i := range n {
		name := fmt.Sprintf("p/%05d", i)
		if i > 0 {
			nav.WriteString(",")
		}
		nav.WriteString(`"` + name + `"`)
		fsys[name+".mdx"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\ntitle: Page %d\n---\nText %d.\n", i, i))}
	}
	fsys["favicon.svg"] = &fstest.MapFile{Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>`)}
	fsys["docs.json"] = &fstest.MapFile{Data: []byte(`{"name": "Big", "favicon": "/favicon.svg", "navigation": {"groups": [{"group": "All", "pages": [` + nav.String() + `]}]}}`)}
	return fsys
}

// foldersSite is a site of n tiny pages in folders of size pages, without
// docs.json: its navigation is the folder tree, one section of a group
// per folder.
func foldersSite(n, size int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := range n {
		fsys[fmt.Sprintf("g%03d/p%05d.mdx", i/size, i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("---\ntitle: Page %d\n---\nText %d.\n", i, i))}
	}
	return fsys
}

// sizeOutput adds up the sizes of the files written and fails the write
// that takes them over limit (0: none), so that a build whose output grows
// too fast stops early.
type sizeOutput struct {
	mu           sync.Mutex
	pages, bytes int
	limit        int
}

var errTooBig = errors.New("output over the size limit")

func (o *sizeOutput) WriteFile(name string, data []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if strings.HasSuffix(name, ".html") {
		o.pages++
	}
	o.bytes += len(data)
	if o.limit > 0 && o.bytes > o.limit {
		return errTooBig
	}
	return nil
}

// TestSidebarOutputLinear checks that the output of a site grows about
// linearly with its pages, navigation files and search index included:
// the bytes per page of a site of twice the pages, in twice the groups
// or in one group twice as large, are at most 10% more.
func TestSidebarOutputLinear(t *testing.T) {
	t.Parallel()
	small, large := 2000, 4000
	for _, c := range []struct {
		name string
		site func(n int) fstest.MapFS
	}{
		{"folders of 200 pages", func(n int) fstest.MapFS { return foldersSite(n, 200) }},
		{"one group", oneGroupSite},
	} {
		for _, export := range []bool{false, true} {
			o := &sizeOutput{}
			if _, err := Build(context.Background(), c.site(small), o, Options{Export: export}); err != nil {
				t.Fatal(err)
			}
			avg := o.bytes / o.pages
			// The larger build stops as soon as its output is over 1.1
			// times the smaller one's per page.
			big := &sizeOutput{limit: avg * 11 / 10 * (large + 2)}
			if _, err := Build(context.Background(), c.site(large), big, Options{Export: export}); err != nil {
				t.Fatalf("%s, export=%v: %d pages: %v (%d bytes in %d pages; %d pages average %d bytes)", c.name, export, large, err, big.bytes, big.pages, small, avg)
			}
			if bigAvg := big.bytes / big.pages; bigAvg > avg*11/10 {
				t.Errorf("%s, export=%v: %d bytes a page at %d pages, %d at %d pages", c.name, export, bigAvg, large, avg, small)
			}
			t.Logf("%s, export=%v: %d bytes a page at %d pages, %d at %d pages", c.name, export, avg, small, big.bytes/big.pages, large)
		}
	}
}

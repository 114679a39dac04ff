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

// sizeOutput adds up the sizes of the .html files written and fails the
// write that takes them over limit (0: none), so that a build whose
// output grows too fast stops early.
type sizeOutput struct {
	mu           sync.Mutex
	pages, bytes int
	limit        int
}

var errTooBig = errors.New("output over the size limit")

func (o *sizeOutput) WriteFile(name string, data []byte) error {
	if !strings.HasSuffix(name, ".html") {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pages++
	o.bytes += len(data)
	if o.limit > 0 && o.bytes > o.limit {
		return errTooBig
	}
	return nil
}

// TestSidebarOutputLinear checks that the output of a site whose pages
// are all in one group grows about linearly with the pages: the sidebar
// of each page does not list every page.
func TestSidebarOutputLinear(t *testing.T) {
	t.Parallel()
	small, large := 2000, 20000
	if testing.Short() {
		large = 8000
	}
	for _, export := range []bool{false, true} {
		o := &sizeOutput{}
		if _, err := Build(context.Background(), oneGroupSite(small), o, Options{Export: export}); err != nil {
			t.Fatal(err)
		}
		avg := o.bytes / o.pages
		// The larger build stops as soon as its pages average 1.5 times
		// the smaller one's.
		big := &sizeOutput{limit: avg * 3 / 2 * (large + 2)}
		if _, err := Build(context.Background(), oneGroupSite(large), big, Options{Export: export}); err != nil {
			t.Fatalf("export=%v: %d pages: %v (%d bytes in %d pages; %d pages average %d bytes)", export, large, err, big.bytes, big.pages, small, avg)
		}
		if bigAvg := big.bytes / big.pages; bigAvg > avg*3/2 {
			t.Errorf("export=%v: pages average %d bytes at %d pages, %d at %d pages", export, bigAvg, large, avg, small)
		}
		t.Logf("export=%v: %d pages average %d bytes, %d pages %d bytes", export, small, avg, large, big.bytes/big.pages)
	}
}

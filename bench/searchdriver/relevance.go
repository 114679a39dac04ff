package main

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// topN is how many results a query's expected page must be among.
const topN = 3

type relQuery struct{ text, want string }

// readQueries reads lines of query<TAB>expected URL path; blank lines and
// lines starting with # are skipped.
func readQueries(name string) ([]relQuery, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []relQuery
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		q, want = strings.TrimSpace(q), strings.TrimSpace(want)
		if !ok || q == "" || want == "" {
			return nil, fmt.Errorf("%s:%d: want query<TAB>expected path", name, n)
		}
		qs = append(qs, relQuery{q, normPath(want)})
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", name)
	}
	return qs, sc.Err()
}

// normPath reduces a result's URL or an expected path to the page's path:
// /server/services/stt/deepgram for .../server/services/stt/deepgram.html,
// /deepgram/, /deepgram#id or /deepgram/index.html alike.
func normPath(s string) string {
	p := s
	if u, err := url.Parse(s); err == nil {
		p = u.Path
	}
	p = strings.TrimSuffix(p, ".html")
	p = strings.TrimSuffix(p, "/index")
	p = strings.TrimRight(p, "/")
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return p
}

// relevance runs the queries of file with each engine and prints, per
// query, the rank of the expected page in the first topN results.
func (d *driver) relevance(ctx context.Context, engines map[string]bool, file string) error {
	qs, err := readQueries(file)
	if err != nil {
		return err
	}
	got := map[string][][]string{}
	if engines["lectern"] {
		if got["lectern"], err = d.lecternTop(ctx, qs); err != nil {
			return fmt.Errorf("lectern: %v", err)
		}
	}
	if engines["pagefind"] {
		if got["pagefind"], err = d.pagefindTop(ctx, qs); err != nil {
			return fmt.Errorf("pagefind: %v", err)
		}
	}
	var names []string
	for _, e := range []string{"lectern", "pagefind"} {
		if got[e] != nil {
			names = append(names, e)
		}
	}
	fmt.Printf("  %-30s %-52s", "query", "expected page")
	for _, e := range names {
		fmt.Printf(" %8s", e)
	}
	fmt.Println()
	hits := map[string]int{}
	var misses []string
	for i, q := range qs {
		fmt.Printf("  %-30s %-52s", trunc(q.text, 30), trunc(q.want, 52))
		for _, e := range names {
			rank := 0
			var top []string
			for k, u := range got[e][i] {
				top = append(top, normPath(u))
				if rank == 0 && normPath(u) == q.want {
					rank = k + 1
				}
			}
			cell := "miss"
			if rank > 0 {
				cell = fmt.Sprintf("hit %d", rank)
				hits[e]++
			} else {
				if len(top) == 0 {
					top = []string{"no results"}
				}
				misses = append(misses, fmt.Sprintf("  %s missed %q: got %s", e, q.text, strings.Join(top, ", ")))
			}
			fmt.Printf(" %8s", cell)
		}
		fmt.Println()
	}
	fmt.Printf("  %-30s %-52s", fmt.Sprintf("in the top %d", topN), fmt.Sprintf("(%d queries)", len(qs)))
	for _, e := range names {
		fmt.Printf(" %7.0f%%", 100*float64(hits[e])/float64(len(qs)))
	}
	fmt.Println()
	for _, e := range names {
		fmt.Printf("  %s: %d of %d queries found their page in the top %d\n", e, hits[e], len(qs), topN)
	}
	for _, m := range misses {
		fmt.Println(m)
	}
	return nil
}

// lecternTop types each query in the search dialog of one page and returns
// the links of its first topN results, once the list has settled.
func (d *driver) lecternTop(ctx context.Context, qs []relQuery) ([][]string, error) {
	t, err := d.newTab(ctx)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if _, _, err := d.open(t, d.page); err != nil {
		return nil, err
	}
	if err := t.eval("instrument the page", instrumentJS, stepTimeout, nil); err != nil {
		return nil, err
	}
	if err := d.openSearch(t); err != nil {
		return nil, err
	}
	out := make([][]string, len(qs))
	for i, q := range qs {
		if err := d.clearQuery(t); err != nil {
			return nil, err
		}
		w, _, err := d.typeQuery(t, q.text)
		if err != nil {
			return nil, err
		}
		if w.First < 0 {
			continue // no result
		}
		js := fmt.Sprintf(`__sb.results(%d)`, topN) // the list has settled
		if err := t.eval("results of "+q.text, js, stepTimeout, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pfTopJS returns the URLs of a Pagefind search's first n results.
const pfTopJS = `(async (q, n) => {
  if (!window.__pf) { window.__pf = await import("/pagefind/pagefind.js"); await window.__pf.init(); }
  const s = await window.__pf.search(q);
  const rs = (s && s.results || []).slice(0, n);
  const ds = await Promise.all(rs.map(r => r.data()));
  return ds.map(d => new URL(d.url, location.href).href);
})(%s, %d)`

// pagefindTop runs each query through Pagefind's API in the blank page.
func (d *driver) pagefindTop(ctx context.Context, qs []relQuery) ([][]string, error) {
	t, err := d.newTab(ctx)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if _, _, err := d.open(t, blankPath); err != nil {
		return nil, err
	}
	out := make([][]string, len(qs))
	for i, q := range qs {
		js := fmt.Sprintf(pfTopJS, jsString(q.text), topN)
		if err := t.eval("pagefind search "+q.text, js, d.resultTimeout+stepTimeout, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// run is one measurement of one query.
type run struct {
	ms        float64 // to the first result; NaN: no result
	openMS    float64 // Lectern, cold: from opening search to the first result
	typing    float64 // Lectern: ms from the first keystroke of the query to the last
	wire, raw int64   // bytes loaded from opening search (or issuing the query) to the first result
	top       string  // the first result's URL
}

// stats gathers the runs of one engine for one query.
type stats struct {
	cold, warm []run
	pageWire   []int64 // bytes of the page search is opened on
	pageRaw    []int64
}

// medianOpenMS is the median of the cold runs' openMS.
func (s *stats) medianOpenMS() float64 {
	rs := make([]run, len(s.cold))
	for i, r := range s.cold {
		rs[i] = run{ms: r.openMS}
	}
	return medianMS(rs)
}

// medianMS is the median of the runs' ms, NaN (a miss) when any run
// missed.
func medianMS(rs []run) float64 {
	var v []float64
	for _, r := range rs {
		if math.IsNaN(r.ms) {
			return math.NaN() // a miss in any run is a miss
		}
		v = append(v, r.ms)
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	return v[(len(v)-1)/2]
}

func medianInt(v []int64) float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return median(f)
}

// speed measures each query with each engine, repeat times, and prints
// the table.
func (d *driver) speed(ctx context.Context, engines map[string]bool, queries []query, repeat int) error {
	res := map[string][]*stats{}
	for _, e := range []string{"lectern", "pagefind"} {
		if !engines[e] {
			continue
		}
		res[e] = make([]*stats, len(queries))
		for i := range queries {
			res[e][i] = &stats{}
		}
		// One tab per query and run: the query cold, then the next query
		// warm in the same page.
		for r := 0; r < repeat; r++ {
			for i, q := range queries {
				next := queries[(i+1)%len(queries)]
				var cold, warm run
				var pw, pr int64
				var err error
				if e == "lectern" {
					cold, warm, pw, pr, err = d.lecternRun(ctx, q.text, next.text)
				} else {
					cold, warm, pw, pr, err = d.pagefindRun(ctx, q.text, next.text)
				}
				if err != nil {
					return fmt.Errorf("%s, query %q: %v", e, q.text, err)
				}
				s := res[e][i]
				s.cold = append(s.cold, cold)
				s.pageWire, s.pageRaw = append(s.pageWire, pw), append(s.pageRaw, pr)
				res[e][(i+1)%len(queries)].warm = append(res[e][(i+1)%len(queries)].warm, warm)
				open := ""
				if e == "lectern" {
					open = fmt.Sprintf(" (from Ctrl+K %s, typing %.0f ms)", withMS(cold.openMS), cold.typing)
				}
				fmt.Fprintf(os.Stderr, "  %s %-8s %-16q cold %s%s, %s, top %s; warm %-16q %s, %s\n",
					e, q.label, q.text, withMS(cold.ms), open, fmtBytes(cold.wire, cold.raw), shortURL(cold.top),
					next.text, withMS(warm.ms), fmtBytes(warm.wire, warm.raw))
			}
		}
	}
	d.printSpeed(queries, res)
	return nil
}

// lecternRun opens the page in a new tab, opens search, types q and
// waits for its first result (cold), then clears the query and types
// next (warm).
func (d *driver) lecternRun(ctx context.Context, q, next string) (cold, warm run, pageWire, pageRaw int64, err error) {
	t, err := d.newTab(ctx)
	if err != nil {
		return cold, warm, 0, 0, err
	}
	defer t.close()
	if pageWire, pageRaw, err = d.open(t, d.page); err != nil {
		return
	}
	if err = t.eval("instrument the page", instrumentJS, stepTimeout, nil); err != nil {
		return
	}
	zero, _, err := t.pageClock()
	if err != nil {
		return
	}
	mark := d.srv.mark()
	if err = d.openSearch(t); err != nil {
		return
	}
	w, at, err := d.typeQuery(t, q)
	if err != nil {
		return
	}
	cold = lecternResult(w)
	if !math.IsNaN(cold.ms) && w.OpenKey >= 0 { // opened by Ctrl+K, not a click
		cold.openMS = w.First - w.OpenKey
	}
	cold.typing = w.Last - w.FirstKey
	cold.wire, cold.raw, _ = d.srv.window(mark, until(zero, w, at))
	d.logRequests("lectern cold "+q, mark, until(zero, w, at))
	if w.Timeout {
		log.Printf("lectern: no result for %q after %s (%d keys seen; requests: %s)", q, d.resultTimeout, w.Keys, strings.Join(d.srv.paths(mark), " "))
	}

	if err = d.clearQuery(t); err != nil {
		return
	}
	mark = d.srv.mark()
	w, at, err = d.typeQuery(t, next)
	if err != nil {
		return
	}
	warm = lecternResult(w)
	warm.wire, warm.raw, _ = d.srv.window(mark, until(zero, w, at))
	d.logRequests("lectern warm "+next, mark, until(zero, w, at))
	return cold, warm, pageWire, pageRaw, nil
}

// logRequests logs, with -v, the requests since mark: those that ended
// by until and the others.
func (d *driver) logRequests(what string, mark int, until time.Time) {
	if !d.verbose {
		return
	}
	in, out := d.srv.requests(mark, until)
	fmt.Fprintf(os.Stderr, "    %s: %d requests by the first result: %s\n", what, len(in), strings.Join(in, " "))
	if len(out) > 0 {
		fmt.Fprintf(os.Stderr, "    %s: %d after: %s\n", what, len(out), strings.Join(out, " "))
	}
}

// until is the end of the window of requests that count for a query: the
// (Go) time of its first result, a millisecond after, when it has one,
// else when the wait for it ended.
func until(zero time.Time, w waitResult, at time.Time) time.Time {
	if w.First < 0 {
		return at
	}
	return zero.Add(time.Duration((w.First + 1) * float64(time.Millisecond)))
}

func lecternResult(w waitResult) run {
	r := run{ms: math.NaN(), openMS: math.NaN(), top: w.Top}
	if w.First >= 0 {
		r.ms = w.First - w.Last
	}
	return r
}

// pfColdJS loads Pagefind and runs a search, to the first result's data.
const pfColdJS = `(async q => {
  const t0 = performance.now();
  const pf = await import("/pagefind/pagefind.js");
  await pf.init();
  window.__pf = pf;
  const s = await pf.search(q);
  if (!s || !s.results || !s.results.length) return {ms: -1, url: ""};
  const d = await s.results[0].data();
  return {ms: performance.now() - t0, url: new URL(d.url, location.href).href};
})(%s)`

// pfWarmJS runs a search with the Pagefind loaded by pfColdJS.
const pfWarmJS = `(async q => {
  const t0 = performance.now();
  const s = await window.__pf.search(q);
  if (!s || !s.results || !s.results.length) return {ms: -1, url: ""};
  const d = await s.results[0].data();
  return {ms: performance.now() - t0, url: new URL(d.url, location.href).href};
})(%s)`

type pfResult struct {
	MS  float64 `json:"ms"`
	URL string  `json:"url"`
}

// pagefindRun opens the blank page in a new tab, loads Pagefind and
// searches q (cold), then next (warm).
func (d *driver) pagefindRun(ctx context.Context, q, next string) (cold, warm run, pageWire, pageRaw int64, err error) {
	t, err := d.newTab(ctx)
	if err != nil {
		return cold, warm, 0, 0, err
	}
	defer t.close()
	if pageWire, pageRaw, err = d.open(t, blankPath); err != nil {
		return
	}
	for i, qq := range []string{q, next} {
		js := pfColdJS
		if i == 1 {
			js = pfWarmJS
		}
		mark := d.srv.mark()
		var p pfResult
		if err = t.eval("pagefind search "+qq, fmt.Sprintf(js, jsString(qq)), d.resultTimeout+stepTimeout, &p); err != nil {
			return
		}
		r := run{ms: p.MS, openMS: math.NaN(), top: p.URL}
		if p.MS < 0 {
			r.ms = math.NaN()
		}
		r.wire, r.raw, _ = d.srv.window(mark, time.Now())
		d.logRequests(fmt.Sprintf("pagefind %s %s", map[bool]string{true: "cold", false: "warm"}[i == 0], qq), mark, time.Now())
		if i == 0 {
			cold = r
		} else {
			warm = r
		}
	}
	return cold, warm, pageWire, pageRaw, nil
}

// printSpeed prints the table: per query, the medians for each engine and
// Lectern's over Pagefind's.
func (d *driver) printSpeed(queries []query, res map[string][]*stats) {
	l, p := res["lectern"], res["pagefind"]
	get := func(s []*stats, i int) *stats {
		if s == nil {
			return &stats{}
		}
		return s[i]
	}
	fmt.Println()
	fmt.Println("  ms to the first result (median); KB sent from opening search to it, cold, and for the query warm; x = Lectern / Pagefind")
	fmt.Printf("  %-24s | %6s %6s %6s | %7s %7s | %6s %6s | %7s %7s %6s | %6s %6s\n",
		"query", "L key", "L open", "L warm", "PF cold", "PF warm", "open x", "warm x", "L KB", "PF KB", "KB x", "L wKB", "PF wKB")
	for i, q := range queries {
		ls, ps := get(l, i), get(p, i)
		lc, lw := medianMS(ls.cold), medianMS(ls.warm)
		lo := ls.medianOpenMS()
		pc, pw := medianMS(ps.cold), medianMS(ps.warm)
		lk, pk := medianKB(ls.cold), medianKB(ps.cold)
		fmt.Printf("  %-24s | %6s %6s %6s | %7s %7s | %6s %6s | %7s %7s %6s | %6s %6s\n",
			trunc(q.label+" "+jsString(q.text), 24), fmtMS(lc), fmtMS(lo), fmtMS(lw), fmtMS(pc), fmtMS(pw),
			fmtRatio(lo, pc), fmtRatio(lw, pw), fmtKB(lk), fmtKB(pk), fmtRatio(lk, pk),
			fmtKB(medianKB(ls.warm)), fmtKB(medianKB(ps.warm)))
	}
	if l != nil {
		s := l[0]
		pw, pr := medianInt(s.pageWire)/1024, medianInt(s.pageRaw)/1024
		fmt.Printf("  Lectern page %s: %s KB sent (%s KB raw); with search opened, to the first result of %q: %s KB sent (%s KB raw)\n",
			d.page, fmtKB(pw), fmtKB(pr), queries[0].text, fmtKB(pw+medianKB(s.cold)), fmtKB(pr+medianRawKB(s.cold)))
	}
	typed := "pasted (one input event)"
	if d.keyDelay > 0 {
		typed = fmt.Sprintf("typed, a key every %d ms", d.keyDelay.Milliseconds())
	}
	fmt.Printf("  L key: Lectern, a fresh page, from the query's last input (search opened with Ctrl+K, then the query %s)\n", typed)
	fmt.Println("  to the list first showing the first result it ends with; L open: the same from the Ctrl+K keydown (the meta")
	fmt.Println("  file, which opening search loads, and the typing included); PF cold: Pagefind in a fresh page, from import() of pagefind.js, through init()")
	fmt.Println("  and search(), to results[0].data(); open x: L open / PF cold, both with their index's first file loaded;")
	fmt.Println("  warm: the next query in the same page; KB: Lectern's index files, Pagefind's (its runtime included); text files are sent gzip-compressed,")
	fmt.Println("  nothing is cached)")
}

func medianKB(rs []run) float64 {
	v := make([]int64, len(rs))
	for i, r := range rs {
		v[i] = r.wire
	}
	return medianInt(v) / 1024
}

func medianRawKB(rs []run) float64 {
	v := make([]int64, len(rs))
	for i, r := range rs {
		v[i] = r.raw
	}
	return medianInt(v) / 1024
}

func fmtMS(ms float64) string {
	if math.IsNaN(ms) {
		return "miss"
	}
	return fmt.Sprintf("%.0f", ms)
}

// withMS is fmtMS with the unit, for the log.
func withMS(ms float64) string {
	if math.IsNaN(ms) {
		return "miss"
	}
	return fmtMS(ms) + " ms"
}

func fmtKB(kb float64) string {
	if math.IsNaN(kb) {
		return "-"
	}
	return fmt.Sprintf("%.1f", kb)
}

func fmtBytes(wire, raw int64) string {
	return fmt.Sprintf("%.1f KB (%.1f raw)", float64(wire)/1024, float64(raw)/1024)
}

func fmtRatio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func trunc(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func shortURL(u string) string {
	if i := strings.Index(u, "//"); i >= 0 {
		if j := strings.Index(u[i+2:], "/"); j >= 0 {
			return u[i+2+j:]
		}
	}
	if u == "" {
		return "-"
	}
	return u
}

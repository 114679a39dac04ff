// Command searchdriver measures a built site's search in headless Chromium,
// for bench/search.sh: Lectern's search dialog, and Pagefind's JS API on
// the same site when it has a pagefind/ folder.
//
//	searchdriver -mode speed [-page P] [-repeat 3] [-key-delay D] -query LABEL=TEXT... SITE
//	searchdriver -mode relevance -queries FILE [-page P] SITE
//
// It serves SITE (a built site, export form) itself on 127.0.0.1 (server.go:
// gzip for text files, no caching), and runs Chromium with no way out to
// other hosts. It works against the search dialog's contract, which does
// not depend on how the index is built: every page has the dialog
// #lc-search (hidden); Ctrl+K or a click on .lc-search-button opens it;
// the input is #lc-search-input; the results are li.lc-search-result in
// #lc-search-results, each with an <a href> to the result.
//
// speed (speed.go) prints, per query, the median over -repeat runs of:
// the milliseconds from the last keystroke to the list first showing the
// first result it ends with (Lectern, a fresh page: the index loads while
// the query is typed; also from Ctrl+K) or from
// import('/pagefind/pagefind.js') to the first result's data (Pagefind),
// cold (a fresh page) and warm (the next query, typed in the same page
// after the index of an earlier one has loaded); the bytes loaded from
// opening search to the first result, cold, and for the warm query; and
// the bytes of the page itself. With -v it logs each query's requests.
// relevance (relevance.go) runs the queries of FILE (query, a tab, the
// expected URL path) and prints the rank of the expected page in the top
// three results, or "miss".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	"lectern.dev/lectern/internal/headless"
)

type query struct{ label, text string }

func main() {
	mode := flag.String("mode", "speed", "speed or relevance")
	chromium := flag.String("chromium", envOr("CHROMIUM", "/usr/bin/chromium"), "Chromium executable ($CHROMIUM)")
	pagePath := flag.String("page", "index.html", "page of SITE to open Lectern's search on (a path under SITE)")
	repeat := flag.Int("repeat", 3, "speed: runs per query (the median is printed)")
	queriesFile := flag.String("queries", "", "relevance: file of query<TAB>expected path lines (# comments)")
	engines := flag.String("engines", "lectern,pagefind", "engines to drive: lectern, pagefind (skipped when SITE has no pagefind/pagefind.js)")
	timeout := flag.Duration("timeout", 30*time.Minute, "bound on the whole run")
	wait := flag.Duration("result-timeout", 15*time.Second, "how long to wait for a query's first result before calling it a miss")
	flag.DurationVar(&settleQuiet, "settle", settleQuiet, "how long the result list must stay as it is for the query's results to be taken as final")
	verbose := flag.Bool("v", false, "speed: log the requests of each measured query")
	keyDelay := flag.Duration("key-delay", 0, "speed: the time from one key of a query to the next as Lectern's is typed (0: every key at once, as when pasted)")
	var queries []query
	flag.Func("query", "speed: LABEL=TEXT, a query to measure (repeatable)", func(v string) error {
		label, text, ok := strings.Cut(v, "=")
		if !ok || label == "" || text == "" {
			return errors.New("want LABEL=TEXT")
		}
		queries = append(queries, query{label, text})
		return nil
	})
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("searchdriver: ")
	if flag.NArg() != 1 {
		log.Fatal("usage: searchdriver [flags] SITE (see go doc ./bench/searchdriver)")
	}
	site := flag.Arg(0)
	if _, err := os.Stat(filepath.Join(site, filepath.FromSlash(*pagePath))); err != nil {
		log.Fatalf("page to open: %v", err)
	}
	if err := checkChromium(*chromium); err != nil {
		log.Fatal(err)
	}
	run := engineSet(*engines)
	if run["pagefind"] {
		if _, err := os.Stat(filepath.Join(site, "pagefind", "pagefind.js")); err != nil {
			log.Printf("no pagefind/pagefind.js in %s: Pagefind is not measured", site)
			delete(run, "pagefind")
		}
	}

	srv, err := serve(site)
	if err != nil {
		log.Fatal(err)
	}
	srv.precompress("_lectern", "pagefind")

	// The arguments, before a browser (and its profile folder) starts.
	switch {
	case *mode == "speed" && len(queries) == 0:
		log.Fatal("speed: give at least one -query LABEL=TEXT")
	case *mode == "relevance" && *queriesFile == "":
		log.Fatal("relevance: give -queries FILE")
	case *mode != "speed" && *mode != "relevance":
		log.Fatalf("unknown -mode %q (speed or relevance)", *mode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	browser, closeBrowser, err := startBrowser(ctx, *chromium)
	if err != nil {
		log.Fatal(err)
	}
	defer closeBrowser()

	d := &driver{srv: srv, browser: browser, page: "/" + strings.TrimPrefix(filepath.ToSlash(*pagePath), "/"), resultTimeout: *wait, verbose: *verbose, keyDelay: *keyDelay}
	if *mode == "speed" {
		err = d.speed(ctx, run, queries, max(*repeat, 1))
	} else {
		err = d.relevance(ctx, run, *queriesFile)
	}
	if err != nil {
		closeBrowser()
		log.Fatal(err)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func engineSet(list string) map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Split(list, ",") {
		if e = strings.TrimSpace(e); e != "" {
			m[e] = true
		}
	}
	return m
}

// checkChromium says clearly what is wrong when Chromium cannot run.
func checkChromium(exe string) error {
	if _, err := exec.LookPath(exe); err != nil {
		return fmt.Errorf("chromium not found at %s (install it with apt-get install -y chromium, or set CHROMIUM): %v", exe, err)
	}
	return nil
}

// startBrowser starts headless Chromium with a fresh profile, no
// background traffic, a host resolver that resolves nothing but the
// loopback address and a dead proxy for every other address, so that no
// page can reach the internet.
func startBrowser(parent context.Context, exe string) (context.Context, func(), error) {
	profile, err := os.MkdirTemp("", "searchdriver-profile-")
	if err != nil {
		return nil, nil, err
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent,
		append(headless.Options(exe, profile), headless.LoopbackOnly()...)...)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	closed := false
	closeAll := func() {
		if closed {
			return
		}
		closed = true
		cancelBrowser()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	}
	startCtx, cancelStart := context.WithTimeout(browser, 60*time.Second)
	defer cancelStart()
	// Start the browser on the browser's context, bounded separately.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(browser) }()
	select {
	case err = <-done:
	case <-startCtx.Done():
		err = errors.New("timed out after 60s")
	}
	if err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("start chromium (%s): %v", exe, err)
	}
	return browser, closeAll, nil
}

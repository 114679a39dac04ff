package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// stepTimeout bounds one step in the browser other than waiting for a
// result (driver.resultTimeout).
const stepTimeout = 60 * time.Second

// settleQuiet is how long the result list must stay as it is for a
// query's results to be taken as final (-settle sets it).
var settleQuiet = 300 * time.Millisecond

type driver struct {
	srv           *server
	browser       context.Context
	page          string // the page Lectern's search is opened on, like /index.html
	resultTimeout time.Duration
	verbose       bool          // log the requests of each measured query
	keyDelay      time.Duration // from one key of a query to the next
}

// tab is one browser tab; close it when done.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func (d *driver) newTab(ctx context.Context) (*tab, error) {
	tctx, cancel := chromedp.NewContext(d.browser)
	stop := context.AfterFunc(ctx, cancel) // the run's deadline closes the tab
	t := &tab{ctx: tctx, cancel: func() { stop(); cancel() }}
	if err := chromedp.Do(tctx); err != nil { // opens the tab
		t.cancel()
		return nil, fmt.Errorf("open a tab: %v", err)
	}
	return t, nil
}

func (t *tab) close() { t.cancel() }

// do runs actions, bounded by timeout.
func (t *tab) do(what string, timeout time.Duration, actions ...chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithTimeout(t.ctx, timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	return nil
}

// eval evaluates js (awaiting a promise) into out, bounded by timeout.
func (t *tab) eval(what, js string, timeout time.Duration, out any) error {
	ctx, cancel := context.WithTimeout(t.ctx, timeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAwaitPromise))
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("%s: result %s: %v", what, raw, err)
	}
	return nil
}

// open loads the site's page p (a path like /index.html) in the tab and
// waits for it and the requests it makes to finish. It returns the bytes
// the page loaded (sent, raw).
func (d *driver) open(t *tab, p string) (wire, raw int64, err error) {
	mark := d.srv.mark()
	err = t.do("open "+p, stepTimeout, chromedp.Navigate(d.srv.addr+p),
		chromedp.Poll[chromedp.Void](`document.readyState === "complete"`, chromedp.WithPollingTimeout(stepTimeout)))
	if err != nil {
		return 0, 0, err
	}
	d.srv.idle(200*time.Millisecond, 10*time.Second)
	wire, raw, _ = d.srv.window(mark, time.Time{})
	return wire, raw, nil
}

// instrumentJS records, in the page's clock (performance.now), the time of
// every input event of the search box (keys: the event's own time stamp,
// the time the browser got the key or the paste), of the last Ctrl+K
// (openKey), and of every DOM change that adds search results, with the
// link of the first result it shows, and defines __sb.wait and
// __sb.settle.
const instrumentJS = `(() => {
  if (window.__sb) return true;
  const sb = window.__sb = {keys: [], adds: [], lastChange: 0, openKey: -1};
  const stamp = e => { const now = performance.now(); return e.timeStamp > 0 && e.timeStamp <= now ? e.timeStamp : now; };
  document.addEventListener("input", e => { if (e.target && e.target.id === "lc-search-input") sb.keys.push(stamp(e)); }, true);
  document.addEventListener("keydown", e => { if (e.ctrlKey && (e.key === "k" || e.key === "K")) sb.openKey = stamp(e); }, true);
  const list = () => document.getElementById("lc-search-results");
  const isResult = n => n.nodeType === 1 && (n.matches("li.lc-search-result") || !!n.querySelector("li.lc-search-result"));
  sb.results = n => Array.from(document.querySelectorAll("#lc-search-results li.lc-search-result")).slice(0, n)
    .map(li => { const a = li.querySelector("a[href]"); return a ? a.href : ""; });
  new MutationObserver(ms => {
    const t = performance.now(), l = list();
    let added = false;
    for (const m of ms) {
      if (l && (m.target === l || l.contains(m.target))) sb.lastChange = t;
      for (const n of m.addedNodes) if (isResult(n)) added = true;
    }
    if (added) sb.adds.push({t, top: sb.results(1)[0] || ""});
  }).observe(document.documentElement, {childList: true, subtree: true, characterData: true, attributes: true});
  sb.opened = () => { const d = document.getElementById("lc-search"), i = document.getElementById("lc-search-input");
    return !!d && !d.hidden && !!i && document.activeElement === i; };
  // wait resolves once the n inputs after the first k0 have arrived,
  // results were added after the last of them and the list has then not
  // changed for quiet ms: {last, first, top}, first being the time the
  // list first showed, after the last key, the first result it shows in
  // the end (a search for a prefix of the query can show other results
  // after the last key). first is -1 when there is no result: the list
  // is empty in the end, or the status says there is none for q for a
  // second, or nothing came in timeout ms.
  sb.wait = (k0, n, q, timeout, quiet) => new Promise(resolve => {
    const t0 = performance.now();
    let none = 0;
    const check = () => {
      const now = performance.now(), keys = sb.keys.slice(k0);
      if (keys.length >= n) {
        const last = keys[keys.length - 1];
        const after = sb.adds.filter(a => a.t >= last);
        if (after.length && now - Math.max(sb.lastChange, after[after.length - 1].t) >= quiet) {
          const top = sb.results(1)[0] || "";
          const hit = top ? after.find(a => a.top === top) : undefined;
          return resolve({last, first: hit ? hit.t : -1, firstKey: keys[0], openKey: sb.openKey, top, renders: after.length});
        }
        const st = document.querySelector("#lc-search .lc-search-status");
        if (!after.length && st && /no results/i.test(st.textContent) && st.textContent.indexOf(q) >= 0) {
          if (!none) none = now;
          if (now - none > 1000) return resolve({last, first: -1, firstKey: keys[0], openKey: sb.openKey, top: ""});
        } else none = 0;
      }
      if (now - t0 > timeout) return resolve({last: keys.length ? keys[keys.length - 1] : -1, first: -1, top: "", timeout: true, keys: keys.length});
      setTimeout(check, 4);
    };
    check();
  });
  // settle resolves once the result list has not changed for quiet ms
  // since it was called (at most max ms) with the first n results' links.
  sb.settle = (quiet, max, n) => new Promise(resolve => {
    const t0 = performance.now();
    const check = () => {
      const now = performance.now();
      if (now - Math.max(sb.lastChange, t0) >= quiet || now - t0 >= max) return resolve(sb.results(n));
      setTimeout(check, 20);
    };
    check();
  });
  sb.clear = () => { const i = document.getElementById("lc-search-input");
    i.value = ""; i.dispatchEvent(new Event("input", {bubbles: true})); return true; };
  return true;
})()`

// waitResult is what __sb.wait resolves to.
type waitResult struct {
	Last     float64 `json:"last"`
	FirstKey float64 `json:"firstKey"`
	OpenKey  float64 `json:"openKey"` // the Ctrl+K that opened search
	First    float64 `json:"first"`
	Top      string  `json:"top"`
	Timeout  bool    `json:"timeout"`
	Keys     int     `json:"keys"`
}

// pageClock returns the Go time of the page's performance.now() zero,
// from the shortest of three round trips, to map times the page took to
// the server's.
func (t *tab) pageClock() (zero time.Time, now float64, err error) {
	best := time.Duration(-1)
	for i := 0; i < 3; i++ {
		before := time.Now()
		var pn float64
		if err := t.eval("clock", `performance.now()`, stepTimeout, &pn); err != nil {
			return time.Time{}, 0, err
		}
		rtt := time.Since(before)
		if best < 0 || rtt < best {
			best, now = rtt, pn
			zero = before.Add(rtt / 2).Add(-time.Duration(pn * float64(time.Millisecond)))
		}
	}
	return zero, now, nil
}

// openSearch opens Lectern's search dialog with Ctrl+K, or a click on the
// search button when the shortcut did not open it.
func (d *driver) openSearch(t *tab) error {
	var has bool
	if err := t.eval("find #lc-search", `!!document.getElementById("lc-search") && !!document.getElementById("lc-search-input")`, stepTimeout, &has); err != nil {
		return err
	}
	if !has {
		return fmt.Errorf("the page has no search dialog (#lc-search with #lc-search-input): was the site built with search on?")
	}
	if err := t.do("Ctrl+K", stepTimeout, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl))); err != nil {
		return err
	}
	var ok bool
	if err := t.eval("search opened", `__sb.opened()`, stepTimeout, &ok); err != nil {
		return err
	}
	if ok {
		return nil
	}
	if err := t.do("click .lc-search-button", 10*time.Second, chromedp.Click(".lc-search-button", chromedp.NodeVisible)); err != nil {
		return fmt.Errorf("Ctrl+K did not open #lc-search, and %v", err)
	}
	if err := t.eval("search opened", `__sb.opened()`, stepTimeout, &ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("neither Ctrl+K nor .lc-search-button opened #lc-search with #lc-search-input focused")
	}
	return nil
}

// typeQuery types q into the focused search input and waits for its first
// result; it returns the wait's result and the (Go) time it returned.
func (d *driver) typeQuery(t *tab, q string) (waitResult, time.Time, error) {
	var k0 int
	if err := t.eval("count keys", `__sb.keys.length`, stepTimeout, &k0); err != nil {
		return waitResult{}, time.Time{}, err
	}
	if err := t.do("type "+q, stepTimeout, typeKeys(q, d.keyDelay)); err != nil {
		return waitResult{}, time.Time{}, err
	}
	var w waitResult
	inputs := len([]rune(q)) // one a key
	if d.keyDelay == 0 {
		inputs = 1 // pasted
	}
	js := fmt.Sprintf(`__sb.wait(%d, %d, %s, %d, %d)`, k0, inputs, jsString(q), d.resultTimeout.Milliseconds(), settleQuiet.Milliseconds())
	err := t.eval("wait for the first result of "+q, js, d.resultTimeout+stepTimeout, &w)
	return w, time.Now(), err
}

// clearQuery empties the search input and waits for the result list to
// settle.
func (d *driver) clearQuery(t *tab) error {
	if err := t.eval("clear the query", `__sb.clear()`, stepTimeout, nil); err != nil {
		return err
	}
	return t.eval("results settle", `__sb.settle(250, 3000, 0)`, stepTimeout, nil)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// typeKeys types s as a keyboard does, key i at delay×i from the first
// (whatever the page made the driver wait for the keys before it): each
// key's keydown carries its text, so that the page gets keydown, keypress
// and input in one task, as from a real key. (chromedp.KeyEvent sends the
// text in a "char" event of its own, a round trip of the driver after the
// keydown: on a page busy loading the index, 20 to 60 ms that no
// reader's keyboard adds.) With no delay, s is pasted: one input event.
func typeKeys(s string, delay time.Duration) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if delay == 0 {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: s})
			return err
		}
		start := time.Now()
		for i, r := range []rune(s) {
			select {
			case <-time.After(time.Until(start.Add(time.Duration(i) * delay))):
			case <-ctx.Done():
				return ctx.Err()
			}
			var down, up *input.DispatchKeyEventParams
			var text, unmodified string
			for _, e := range kb.Encode(r) {
				switch e.Type {
				case kb.KeyDown:
					down = e
				case kb.KeyUp:
					up = e
				case kb.KeyChar:
					text, unmodified = e.Text, e.UnmodifiedText
				}
			}
			if down == nil || up == nil {
				return fmt.Errorf("type %q: no key events for it", r)
			}
			down.Text, down.UnmodifiedText = text, unmodified
			for _, e := range []*input.DispatchKeyEventParams{down, up} {
				if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

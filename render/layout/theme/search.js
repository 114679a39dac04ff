// Lectern search: the search box and dialog (Ctrl K, "/"). Loaded only by
// sites with search; the dialog (#lc-search) says where the index is. It
// loads nothing from other hosts.
(function () {
  "use strict";
  var doc = document;

  function ready(fn) {
    if (doc.readyState !== "loading") fn();
    else doc.addEventListener("DOMContentLoaded", fn);
  }
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  // Search: the index (render/search) is loaded a file at a time, as
  // scripts (file:// cannot fetch), from the first time search opens.
  var search = {
    dialog: null, input: null, list: null, status: null,
    index: null, results: [], selected: -1, lastFocus: null, timer: 0, seq: 0, shown: null, asked: null
  };
  // STALE: after this many ms (or a file that failed to load), the next
  // query reads the index afresh: a deployment may have changed it.
  var STALE = 5 * 60 * 1000;
  function engine() {
    if (search.index) {
      search.index.refresh(STALE);
      return search.index;
    }
    var meta = search.dialog.getAttribute("data-search-index") || "";
    search.index = lecternSearchIndex(meta.replace(/meta\.js$/, ""));
    return search.index;
  }
  function setStatus(msg) { if (search.status) search.status.textContent = msg; }
  function resultURL(u) {
    var rootURL = search.dialog.getAttribute("data-root") || "";
    return /^([a-z][a-z0-9+.-]*:|\/)/i.test(u) ? u : rootURL + u;
  }
  // run searches for the input's text and shows the results, unless a
  // newer search started meanwhile: the first as soon as its fragment is
  // in, the first FIRST when theirs are, then up to MORE.
  var FIRST = 5, MORE = 20;
  function run() {
    var q = search.input.value;
    // The query last asked, not the last shown: a query typed back while
    // a newer one's results load is asked again, not left to them.
    if (q === search.asked) return;
    search.asked = q;
    var seq = ++search.seq;
    if (!q.trim()) { show(q, []); return; }
    if (search.shown === null) setStatus("Loading…");
    var failed = function () {
      if (seq !== search.seq) return;
      search.asked = null; // asked again on the next key
      setStatus("The search index could not be loaded.");
    };
    var index = engine();
    // The best result on its own as soon as its fragment is in, then the
    // first FIRST: their fragments are asked for once the best one's is in
    // (the ranking is shared), not to slow it down.
    index.search(q, 1).then(function (rs) {
      if (seq !== search.seq || !rs) return null;
      if (rs.length) show(q, rs);
      return rs.length ? index.search(q, FIRST) : rs;
    }).then(function (rs) {
      if (seq !== search.seq || !rs) return;
      if (rs.length !== 1) show(q, rs);
      if (rs.length < FIRST) return;
      // The rest once the reader stops typing.
      setTimeout(function () {
        if (seq !== search.seq) return;
        index.search(q, MORE).then(function (all) {
          if (seq === search.seq && all) show(q, all, search.selected);
        }, failed);
      }, 150);
    }, failed);
  }
  function text(parent, tag, cls, s) {
    var el = doc.createElement(tag);
    el.className = cls;
    el.textContent = s;
    parent.appendChild(el);
    return el;
  }
  function show(q, results, selected) {
    var list = search.list;
    search.shown = q;
    while (list.firstChild) list.removeChild(list.firstChild);
    search.results = results;
    search.selected = results.length ? Math.max(0, selected || 0) : -1;
    results.forEach(function (r, i) {
      var li = doc.createElement("li");
      li.className = "lc-search-result";
      li.id = "lc-search-result-" + i;
      li.setAttribute("role", "option");
      var a = doc.createElement("a");
      a.href = resultURL(r.url) + (r.anchor ? "#" + encodeURIComponent(r.anchor) : "");
      text(a, "span", "lc-search-result-title", r.title);
      var where = [r.group, r.heading].filter(Boolean).join(" › ");
      if (where) text(a, "span", "lc-search-result-meta", where);
      if (r.excerpt) {
        var ex = text(a, "span", "lc-search-result-excerpt", "");
        var at = 0;
        r.marks.forEach(function (m) {
          ex.appendChild(doc.createTextNode(r.excerpt.slice(at, m[0])));
          text(ex, "mark", "", r.excerpt.slice(m[0], m[1]));
          at = m[1];
        });
        ex.appendChild(doc.createTextNode(r.excerpt.slice(at)));
      }
      a.addEventListener("click", function () { report(a.href); close(); });
      li.appendChild(a);
      li.addEventListener("mousemove", function () { if (search.selected !== i) select(i); });
      list.appendChild(li);
    });
    select(search.selected);
    setStatus(q.trim() && !results.length ? "No results for “" + q.trim() + "”" :
      results.length && results[0].partial ? "No page has all of these words: these pages have most of them." : "");
  }
  function select(i) {
    var items = search.list.children;
    each(items, function (li, k) { li.setAttribute("aria-selected", k === i ? "true" : "false"); });
    search.selected = i;
    if (i >= 0 && items[i]) {
      search.input.setAttribute("aria-activedescendant", items[i].id);
      if (items[i].scrollIntoView) items[i].scrollIntoView({ block: "nearest" });
    } else {
      search.input.removeAttribute("aria-activedescendant");
    }
  }
  function open() {
    if (!search.dialog) return;
    if (!search.dialog.hidden) { search.input.focus(); return; }
    search.lastFocus = doc.activeElement;
    search.dialog.hidden = false;
    search.reported = "";
    doc.body.classList.add("lc-search-open");
    search.input.focus();
    search.input.select();
    engine().warm(); // the meta file, before the first key
    run();
  }
  // report tells the page's other scripts of a search
  // that ends: a "lectern:search" event on the document, detail {query,
  // results, clicked} (clicked: the path of the result followed, or "").
  // Once per search: the query shown when the result is followed or the
  // dialog closes.
  function report(href) {
    var q = (search.shown || "").trim();
    if (!q || search.reported === q) return;
    search.reported = q;
    var clicked = "";
    if (href) { try { clicked = new URL(href, window.location.href).pathname; } catch (e) { clicked = ""; } }
    try {
      doc.dispatchEvent(new CustomEvent("lectern:search", { detail: { query: q, results: search.results.length, clicked: clicked } }));
    } catch (e) { /* no CustomEvent: nothing to tell */ }
  }
  function close() {
    if (!search.dialog || search.dialog.hidden) return;
    report("");
    search.dialog.hidden = true;
    doc.body.classList.remove("lc-search-open");
    if (search.lastFocus && search.lastFocus.focus) search.lastFocus.focus();
  }
  function initSearch() {
    search.dialog = doc.getElementById("lc-search");
    search.input = doc.getElementById("lc-search-input");
    search.list = doc.getElementById("lc-search-results");
    search.status = search.dialog && search.dialog.querySelector(".lc-search-status");
    if (!search.dialog || !search.input || !search.list) return;
    var mac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent || "");
    each(doc.querySelectorAll(".lc-search-button"), function (b) {
      b.addEventListener("click", open);
      var kbd = b.querySelector(".lc-search-kbd");
      if (kbd && mac) kbd.textContent = "⌘K";
    });
    var backdrop = search.dialog.querySelector(".lc-search-backdrop");
    if (backdrop) backdrop.addEventListener("click", close);
    search.input.addEventListener("input", function () {
      clearTimeout(search.timer);
      search.timer = setTimeout(function () { search.timer = 0; run(); }, 0);
    });
    search.input.addEventListener("keydown", function (e) {
      var n = search.results.length;
      if (e.key === "ArrowDown" && n) { select((search.selected + 1) % n); e.preventDefault(); }
      else if (e.key === "ArrowUp" && n) { select((search.selected - 1 + n) % n); e.preventDefault(); }
      else if (e.key === "Enter") {
        if (search.timer) { clearTimeout(search.timer); search.timer = 0; run(); }
        var li = search.list.children[search.selected];
        var a = li && li.querySelector("a");
        if (a) { e.preventDefault(); report(a.href); close(); window.location.href = a.href; }
      }
    });
    doc.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && (e.key === "k" || e.key === "K")) {
        e.preventDefault();
        if (search.dialog.hidden) open(); else close();
        return;
      }
      if (e.key === "Escape" && !search.dialog.hidden) { e.preventDefault(); close(); return; }
      if (e.key === "/" && search.dialog.hidden && !e.ctrlKey && !e.metaKey && !e.altKey) {
        var t = e.target;
        var tag = t && t.tagName;
        if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable)) return;
        e.preventDefault();
        open();
      }
    });
  }

  ready(initSearch);
})();

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

  // Search: the index is a script (file:// cannot fetch JSON), loaded the
  // first time search opens.
  var search = {
    dialog: null, input: null, list: null, status: null,
    pages: null, loading: false, results: [], selected: -1, lastFocus: null, timer: 0
  };
  function loadIndex(then) {
    if (search.pages) { then(); return; }
    if (window.LECTERN_SEARCH_INDEX) { prepare(window.LECTERN_SEARCH_INDEX); then(); return; }
    if (search.loading) return;
    search.loading = true;
    setStatus("Loading…");
    var s = doc.createElement("script");
    s.src = search.dialog.getAttribute("data-search-index");
    s.async = true;
    s.onload = function () {
      search.loading = false;
      prepare(window.LECTERN_SEARCH_INDEX || { pages: [] });
      then();
    };
    s.onerror = function () {
      search.loading = false;
      setStatus("The search index could not be loaded.");
    };
    doc.head.appendChild(s);
  }
  function prepare(index) {
    var rootURL = search.dialog.getAttribute("data-root") || "";
    search.pages = (index.pages || []).map(function (p) {
      var url = p.url || "";
      if (!/^([a-z][a-z0-9+.-]*:|\/)/i.test(url)) url = rootURL + url;
      return {
        url: url,
        title: p.title || p.path || "",
        t: (p.title || "").toLowerCase(),
        group: p.group || "",
        d: ((p.description || "") + " " + (p.keywords || []).join(" ")).toLowerCase(),
        text: p.text || "",
        x: (p.text || "").toLowerCase(),
        headings: (p.headings || []).map(function (h) {
          return { id: h.id, text: h.text, l: (h.text || "").toLowerCase() };
        })
      };
    });
  }
  function setStatus(msg) { if (search.status) search.status.textContent = msg; }

  // score rates how field f matches term q: whole field, prefix, word
  // prefix, substring.
  function score(f, q) {
    var i = f.indexOf(q);
    if (i < 0) return 0;
    if (f.length === q.length) return 4;
    if (i === 0) return 3;
    var c = f.charAt(i - 1);
    return c === " " || c === "-" || c === "_" || c === "/" || c === "." || c === "(" ? 2 : 1;
  }
  function query(q) {
    var terms = q.toLowerCase().split(/\s+/).filter(Boolean);
    var out = [];
    if (!terms.length || !search.pages) return out;
    var phrase = terms.join(" ");
    search.pages.forEach(function (p) {
      var total = 0, best = null, bestScore = 0, textAt = -1;
      for (var k = 0; k < terms.length; k++) {
        var q = terms[k];
        var s = score(p.t, q) * 100;
        for (var j = 0; j < p.headings.length; j++) {
          var hs = score(p.headings[j].l, q) * 10;
          if (hs > bestScore) { bestScore = hs; best = p.headings[j]; }
          if (hs > s) s = hs;
        }
        if (!s && p.d.indexOf(q) >= 0) s = 5;
        if (!s) {
          var ti = p.x.indexOf(q);
          if (ti < 0) return; // every term must match
          if (textAt < 0) textAt = ti;
          s = 1;
        }
        total += s;
      }
      if (terms.length > 1 && p.t.indexOf(phrase) >= 0) total += 200;
      var titleHit = terms.every(function (q) { return p.t.indexOf(q) >= 0; });
      var r = { page: p, score: total, heading: null, snippet: "" };
      if (!titleHit && best) {
        r.heading = best;
      } else if (!titleHit && textAt < 0) {
        textAt = p.x.indexOf(terms[0]);
      }
      if (!titleHit && !r.heading && textAt >= 0) {
        var from = Math.max(0, textAt - 40);
        r.snippet = (from > 0 ? "…" : "") + p.text.slice(from, textAt + 100) + "…";
      }
      out.push(r);
    });
    out.sort(function (a, b) { return b.score - a.score || a.page.title.length - b.page.title.length; });
    return out.slice(0, 30);
  }
  function render() {
    var q = search.input.value.trim();
    var list = search.list;
    while (list.firstChild) list.removeChild(list.firstChild);
    search.results = query(q);
    search.selected = search.results.length ? 0 : -1;
    search.results.forEach(function (r, i) {
      var li = doc.createElement("li");
      li.className = "lc-search-result";
      li.id = "lc-search-result-" + i;
      li.setAttribute("role", "option");
      var a = doc.createElement("a");
      a.href = r.page.url + (r.heading ? "#" + encodeURIComponent(r.heading.id) : "");
      var title = doc.createElement("span");
      title.className = "lc-search-result-title";
      title.textContent = r.page.title;
      a.appendChild(title);
      var sub = r.heading ? r.heading.text : r.snippet;
      if (r.page.group || sub) {
        var meta = doc.createElement("span");
        meta.className = "lc-search-result-meta";
        meta.textContent = (r.page.group ? r.page.group + (sub ? " › " : "") : "") + (sub || "");
        a.appendChild(meta);
      }
      a.addEventListener("click", close);
      li.appendChild(a);
      li.addEventListener("mousemove", function () { if (search.selected !== i) select(i); });
      list.appendChild(li);
    });
    select(search.selected);
    setStatus(q && !search.results.length ? "No results for “" + q + "”" : "");
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
    doc.body.classList.add("lc-search-open");
    search.input.focus();
    search.input.select();
    loadIndex(render);
  }
  function close() {
    if (!search.dialog || search.dialog.hidden) return;
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
      search.timer = setTimeout(function () { search.timer = 0; if (search.pages) render(); }, 60);
    });
    search.input.addEventListener("keydown", function (e) {
      var n = search.results.length;
      if (e.key === "ArrowDown" && n) { select((search.selected + 1) % n); e.preventDefault(); }
      else if (e.key === "ArrowUp" && n) { select((search.selected - 1 + n) % n); e.preventDefault(); }
      else if (e.key === "Enter") {
        if (search.timer) { clearTimeout(search.timer); search.timer = 0; if (search.pages) render(); }
        var li = search.list.children[search.selected];
        var a = li && li.querySelector("a");
        if (a) { e.preventDefault(); close(); window.location.href = a.href; }
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

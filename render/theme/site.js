// Lectern site script: progressive enhancements only. Pages work without
// it, from a server and from file://; it loads nothing from other hosts.
(function () {
  "use strict";
  var doc = document;
  var root = doc.documentElement;

  function ready(fn) {
    if (doc.readyState !== "loading") fn();
    else doc.addEventListener("DOMContentLoaded", fn);
  }
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  function childrenWith(el, cls) {
    return Array.prototype.filter.call(el.children, function (c) { return c.classList.contains(cls); });
  }
  function store(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* file://, privacy settings */ }
  }

  // Colour scheme: html[data-theme] overrides prefers-color-scheme;
  // theme-init.js applies the stored choice before the first paint.
  function darkNow() {
    var t = root.getAttribute("data-theme");
    if (t) return t === "dark";
    return !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  }
  function initThemeToggle() {
    each(doc.querySelectorAll(".lc-theme-toggle"), function (b) {
      b.setAttribute("aria-pressed", darkNow() ? "true" : "false");
      b.addEventListener("click", function () {
        var next = darkNow() ? "light" : "dark";
        root.setAttribute("data-theme", next);
        store("lectern-theme", next);
        each(doc.querySelectorAll(".lc-theme-toggle"), function (x) {
          x.setAttribute("aria-pressed", next === "dark" ? "true" : "false");
        });
      });
    });
  }

  // Mobile navigation.
  function initMenu() {
    var button = doc.querySelector(".lc-menu-button");
    if (!button) return;
    button.addEventListener("click", function () {
      var open = doc.body.classList.toggle("lc-sidebar-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    var sidebar = doc.getElementById("lc-sidebar");
    if (sidebar) {
      sidebar.addEventListener("click", function (e) {
        if (e.target.closest && e.target.closest("a")) {
          doc.body.classList.remove("lc-sidebar-open");
          button.setAttribute("aria-expanded", "false");
        }
      });
    }
    var active = doc.querySelector(".lc-sidebar a.lc-active");
    if (active && sidebar && active.offsetTop > sidebar.clientHeight) {
      sidebar.scrollTop = active.offsetTop - sidebar.clientHeight / 3;
    }
  }

  // Tabs and code groups: a tab list of buttons above panels, the first
  // shown.
  var tabCount = 0;
  function tabify(container, panels, titleOf) {
    if (panels.length === 0) return;
    var id = "lc-tabs-" + (++tabCount);
    var list = doc.createElement("div");
    list.className = "lc-tab-list";
    list.setAttribute("role", "tablist");
    var buttons = panels.map(function (panel, i) {
      var b = doc.createElement("button");
      b.type = "button";
      b.className = "lc-tab-button";
      b.id = id + "-tab-" + i;
      b.setAttribute("role", "tab");
      b.setAttribute("aria-controls", id + "-panel-" + i);
      b.textContent = titleOf(panel, i);
      b.addEventListener("click", function () { select(i); });
      b.addEventListener("keydown", function (e) {
        var n = e.key === "ArrowRight" ? i + 1 : e.key === "ArrowLeft" ? i - 1 : -2;
        if (n === -2) return;
        n = (n + panels.length) % panels.length;
        select(n);
        buttons[n].focus();
        e.preventDefault();
      });
      list.appendChild(b);
      panel.classList.add("lc-tab-panel");
      panel.id = panel.id || id + "-panel-" + i;
      b.setAttribute("aria-controls", panel.id);
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", b.id);
      return b;
    });
    function select(n) {
      panels.forEach(function (panel, i) {
        panel.hidden = i !== n;
        buttons[i].setAttribute("aria-selected", i === n ? "true" : "false");
        buttons[i].tabIndex = i === n ? 0 : -1;
      });
    }
    container.insertBefore(list, container.firstChild);
    container.classList.add("lc-tabbed");
    select(0);
  }
  function initTabs() {
    each(doc.querySelectorAll(".lc-tabs"), function (tabs) {
      tabify(tabs, childrenWith(tabs, "lc-tab"), function (p, i) {
        var t = p.querySelector(".lc-tab-title");
        return t && t.textContent.trim() ? t.textContent.trim() : "Tab " + (i + 1);
      });
    });
    each(doc.querySelectorAll(".lc-code-group"), function (group) {
      tabify(group, childrenWith(group, "lc-code"), function (p, i) {
        var t = p.querySelector(".lc-code-title");
        if (t && t.textContent.trim()) return t.textContent.trim();
        var lang = p.getAttribute("data-lang");
        if (lang) return lang;
        var code = p.querySelector("code[class^='language-']");
        return code ? code.className.replace("language-", "") : "Code " + (i + 1);
      });
    });
  }

  // Copy buttons on code blocks: the highlighter's .lc-copy, or one added.
  function copyText(text, done) {
    function fallback() {
      var ta = doc.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.style.position = "fixed";
      ta.style.opacity = "0";
      doc.body.appendChild(ta);
      ta.select();
      try { if (doc.execCommand("copy")) done(); } catch (e) { /* not allowed */ }
      doc.body.removeChild(ta);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  }
  function initCopy() {
    each(doc.querySelectorAll(".lc-code"), function (block) {
      var pre = block.querySelector("pre");
      if (!pre) return;
      var b = block.querySelector(".lc-copy");
      if (!b) {
        b = doc.createElement("button");
        b.type = "button";
        b.className = "lc-copy";
        b.textContent = "Copy";
        b.setAttribute("aria-label", "Copy code");
        block.appendChild(b);
      }
      var label = b.textContent || "Copy";
      b.addEventListener("click", function () {
        copyText(pre.textContent, function () {
          b.textContent = "Copied";
          b.classList.add("lc-copied");
          setTimeout(function () { b.textContent = label; b.classList.remove("lc-copied"); }, 1500);
        });
      });
    });
  }

  // Table of contents: highlight the section being read.
  function initScrollSpy() {
    var links = doc.querySelectorAll(".lc-toc a[href^='#']");
    if (!links.length) return;
    var items = [];
    each(links, function (a) {
      var id;
      try { id = decodeURIComponent(a.getAttribute("href").slice(1)); } catch (e) { id = a.getAttribute("href").slice(1); }
      var h = doc.getElementById(id);
      if (h) items.push({ a: a, h: h });
    });
    if (!items.length) return;
    var current = null, queued = false;
    function update() {
      queued = false;
      var offset = 120, pick = items[0];
      for (var i = 0; i < items.length; i++) {
        if (items[i].h.getBoundingClientRect().top - offset <= 0) pick = items[i];
        else break;
      }
      if (window.innerHeight + window.scrollY >= doc.documentElement.scrollHeight - 2) pick = items[items.length - 1];
      if (pick === current) return;
      if (current) { current.a.classList.remove("lc-active"); current.a.removeAttribute("aria-current"); }
      current = pick;
      current.a.classList.add("lc-active");
      current.a.setAttribute("aria-current", "location");
    }
    window.addEventListener("scroll", function () {
      if (!queued) { queued = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    update();
  }

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
    s.src = doc.body.getAttribute("data-search-index");
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
    var rootURL = doc.body.getAttribute("data-root") || "";
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

  ready(function () {
    initThemeToggle();
    initMenu();
    initTabs();
    initCopy();
    initScrollSpy();
    initSearch();
  });
})();

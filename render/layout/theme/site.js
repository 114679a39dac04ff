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
    var sidebar = doc.getElementById("sidebar");
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

  ready(function () {
    initThemeToggle();
    initMenu();
    initTabs();
    initCopy();
    initScrollSpy();
  });
})();

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
    var sidebar = doc.getElementById("sidebar"), shown = false;
    // The current page's link in view, a third down the sidebar, when the
    // sidebar is first shown (on a phone, when the menu first opens).
    function showActive() {
      var active = doc.querySelector(".lc-sidebar a.lc-active");
      if (shown || !active || !sidebar || !sidebar.clientHeight) return;
      shown = true;
      var top = active.getBoundingClientRect().top - sidebar.getBoundingClientRect().top + sidebar.scrollTop;
      if (top > sidebar.clientHeight) sidebar.scrollTop = top - sidebar.clientHeight / 3;
    }
    button.addEventListener("click", function () {
      var open = doc.body.classList.toggle("lc-sidebar-open");
      button.setAttribute("aria-expanded", open ? "true" : "false");
      if (!open || !sidebar) return;
      // Below the header, which the row of tabs makes taller.
      var header = doc.getElementById("navbar");
      if (header) sidebar.style.setProperty("--lc-menu-top", header.getBoundingClientRect().bottom + "px");
      showActive();
    });
    if (sidebar) {
      sidebar.addEventListener("click", function (e) {
        if (e.target.closest && e.target.closest("a")) {
          doc.body.classList.remove("lc-sidebar-open");
          button.setAttribute("aria-expanded", "false");
        }
      });
    }
    showActive();
  }

  // Sidebars of large sections: the page carries its part (.lc-nav-part);
  // the section's navigation file (_lectern/nav/<id>.js, a script, which
  // loads from file:// where fetching does not) sets window.lecternNav,
  // whose markup of the whole sidebar replaces the part, its relative URLs
  // prefixed with the part's data-root, the current page marked and its
  // groups open, the current link kept where it was on the screen.
  // For thousands of entries, the URLs are prefixed in the markup before
  // it is parsed, links are compared by URL only when their hrefs end
  // alike, and the large sections out of view are not laid out.
  function initNav() {
    var part = doc.querySelector(".lc-nav-part");
    if (!part) return;
    // find returns the link of links that leads where a does, or null.
    function find(links, a) {
      var u = a.getAttribute("href") || "", tail = u.slice(u.lastIndexOf("/") + 1);
      for (var i = 0; i < links.length; i++) {
        var v = links[i].getAttribute("href") || "";
        if (v.slice(v.length - tail.length) === tail && links[i].href === a.href) return links[i];
      }
      return null;
    }
    // rows counts the rows that el shows: links, headings and summaries
    // not in a closed group.
    function rows(el) {
      var n = 0;
      for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
        var tag = c.tagName;
        if (tag === "A" || tag === "P" || tag === "SUMMARY" || tag === "DETAILS" && !c.open) n++;
        else if (tag !== "svg") n += rows(c);
      }
      return n;
    }
    function draw() {
      var nav = window.lecternNav;
      window.lecternNavReady = null;
      if (!nav || nav.id !== part.getAttribute("data-nav") || typeof nav.html !== "string") return;
      var prefix = (part.getAttribute("data-root") || "").replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
      var box = doc.createElement("div");
      // A function, not a string: "$&" in the site's path is no pattern.
      box.innerHTML = prefix ? nav.html.replace(/ href="(?![a-z][a-z0-9+.-]*:|[\/#?])/gi, function () { return ' href="' + prefix; }) : nav.html;
      var links = box.getElementsByTagName("a");
      var cur = part.querySelector("a.lc-active"), mark = null;
      if (cur) {
        mark = find(links, cur);
        if (!mark) {
          // A hidden page is in no navigation file: it goes next to
          // the entry beside it in the part, a link or a group (found by
          // its first link, as many levels up). A page at the top of the
          // sidebar is a list of its own: the entry beside that list. A
          // list is never the entry (beside it is its group's heading):
          // a group holding only the page goes whole.
          var own = cur.parentNode;
          while (own.parentNode !== part && (own.tagName === "UL" || !own.previousElementSibling && !own.nextElementSibling)) own = own.parentNode;
          var prev = own.previousElementSibling, next = own.nextElementSibling;
          var near = prev || next, a = near && near.querySelector("a"), at = a && find(links, a);
          for (var up = a; at && up !== near; up = up.parentNode) at = at.parentNode;
          if (!at) return;
          var copy = own.cloneNode(true);
          mark = copy.querySelector("a.lc-active");
          if (!mark) return;
          at.parentNode.insertBefore(copy, prev ? at.nextSibling : at);
          // The top's lists are a line each, as the build writes them.
          if (own.parentNode === part) at.parentNode.insertBefore(doc.createTextNode("\n"), prev ? copy : at);
        }
        mark.className = "lc-active";
        mark.setAttribute("aria-current", "page");
        for (var p = mark.parentNode; p && p !== box; p = p.parentNode) if (p.tagName === "DETAILS") p.open = true;
      }
      // A link or group of the part that has the focus keeps it in the
      // whole sidebar (a group found by its first link, as many levels
      // up), and a group keeps whether it is open.
      var focus = doc.activeElement, refocus = null;
      if (focus && part.contains(focus) && focus.href) refocus = find(links, focus);
      else if (focus && part.contains(focus) && focus.tagName === "SUMMARY") {
        var group = focus.parentNode, first = group.querySelector("a"), same = first && find(links, first);
        for (var u = first; same && u !== group; u = u.parentNode) same = same.parentNode;
        if (same && same.tagName === "DETAILS") {
          same.open = group.open;
          refocus = same.querySelector("summary");
        }
      }
      var side = doc.getElementById("sidebar"), top = 0, row = 34;
      if (cur) {
        top = cur.getBoundingClientRect().top;
        row = cur.parentNode.getBoundingClientRect().height || row;
      }
      // The large sections out of view are neither styled nor laid out
      // (content-visibility; about a fourth of the time at 10,000 entries),
      // each as high meanwhile as its rows at the height of the current
      // page's; a focus ring at their edges is not clipped.
      var css = "";
      for (var k = 0, kids = box.children; k < kids.length; k++) {
        var n = rows(kids[k]);
        if (n >= 50) css += ".lc-nav-part>:nth-child(" + (k + 1) + "){content-visibility:auto;contain-intrinsic-size:auto " + Math.round(n * row) + "px;overflow-clip-margin:8px}";
      }
      if (css) {
        var style = doc.createElement("style");
        style.textContent = css;
        doc.head.appendChild(style);
      }
      // Moved through a fragment: replaceChildren.apply with every node
      // as an argument throws past some 65,000 of them.
      var moved = doc.createDocumentFragment();
      while (box.firstChild) moved.appendChild(box.firstChild);
      part.replaceChildren(moved);
      if (mark && side) side.scrollTop += mark.getBoundingClientRect().top - top;
      if (refocus) refocus.focus();
    }
    if (window.lecternNav) draw();
    else window.lecternNavReady = draw;
  }

  // Tabs and code groups: a tab list of buttons above panels (a menu for
  // a code group with dropdown), the first shown, or the one
  // data-default-tab names. Groups sync by title, as on Mintlify: choosing
  // "Python" in one chooses it in every other group that has it, except
  // those marked data-sync="false".
  var tabCount = 0;
  var tabGroups = [];
  function tabify(container, panels, titleOf) {
    if (panels.length === 0) return;
    var id = "lc-tabs-" + (++tabCount);
    var list = doc.createElement("div");
    list.className = "lc-tab-list";
    var titles = panels.map(titleOf);
    var dropdown = container.classList.contains("lc-code-dropdown");
    var menu = null;
    var buttons = [];
    if (dropdown) {
      menu = doc.createElement("select");
      menu.className = "lc-code-select";
      menu.setAttribute("aria-label", "Choose an example");
      titles.forEach(function (t, i) {
        var o = doc.createElement("option");
        o.value = String(i);
        o.textContent = t;
        menu.appendChild(o);
      });
      menu.addEventListener("change", function () { choose(+menu.value); });
      var current = doc.createElement("span");
      current.className = "lc-code-current";
      list.appendChild(current);
      list.appendChild(menu);
    } else {
      list.setAttribute("role", "tablist");
    }
    panels.forEach(function (panel, i) {
      panel.classList.add("lc-tab-panel");
      panel.id = panel.id || id + "-panel-" + i;
      if (dropdown) return;
      var b = doc.createElement("button");
      b.type = "button";
      b.className = "lc-tab-button";
      b.id = id + "-tab-" + i;
      b.setAttribute("role", "tab");
      b.setAttribute("aria-controls", panel.id);
      var icon = panel.querySelector(":scope > .lc-tab-title > .lc-icon");
      if (icon) b.appendChild(icon.cloneNode(true));
      b.appendChild(doc.createTextNode(titles[i]));
      b.addEventListener("click", function () { choose(i); });
      b.addEventListener("keydown", function (e) {
        var n = e.key === "ArrowRight" ? i + 1 : e.key === "ArrowLeft" ? i - 1 : -2;
        if (n === -2) return;
        n = (n + panels.length) % panels.length;
        choose(n);
        buttons[n].focus();
        e.preventDefault();
      });
      list.appendChild(b);
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", b.id);
      buttons.push(b);
    });
    function select(n) {
      panels.forEach(function (panel, i) {
        panel.hidden = i !== n;
        if (buttons[i]) {
          buttons[i].setAttribute("aria-selected", i === n ? "true" : "false");
          buttons[i].tabIndex = i === n ? 0 : -1;
        }
      });
      if (menu) {
        menu.value = String(n);
        list.firstChild.textContent = titles[n];
      }
    }
    var group = { titles: titles, select: select, sync: container.getAttribute("data-sync") !== "false" };
    function choose(n) {
      select(n);
      if (!group.sync) return;
      tabGroups.forEach(function (g) {
        var k = g.titles.indexOf(titles[n]);
        if (g !== group && g.sync && k >= 0) g.select(k);
      });
    }
    tabGroups.push(group);
    container.insertBefore(list, container.firstChild);
    container.classList.add("lc-tabbed");
    var first = parseInt(container.getAttribute("data-default-tab") || "0", 10);
    select(first >= 0 && first < panels.length ? first : 0);
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

  // Components: copy buttons of prompts and colour swatches, the menu of
  // views, the panel beside the page and accordions opened by the URL.
  function flashCopied(el) {
    el.classList.add("lc-copied");
    setTimeout(function () { el.classList.remove("lc-copied"); }, 1500);
  }
  function initComponentCopy() {
    each(doc.querySelectorAll(".lc-prompt-copy"), function (b) {
      var text = b.closest(".lc-prompt").querySelector(".lc-prompt-text");
      var label = b.querySelector("span");
      b.addEventListener("click", function () {
        copyText(text ? text.textContent : "", function () {
          if (label) {
            label.textContent = "Copied";
            setTimeout(function () { label.textContent = "Copy prompt"; }, 1500);
          }
          flashCopied(b);
        });
      });
    });
    each(doc.querySelectorAll(".lc-color-item"), function (b) {
      b.addEventListener("click", function () {
        var v = (darkNow() && b.getAttribute("data-copy-dark")) || b.getAttribute("data-copy") || "";
        copyText(v, function () { flashCopied(b); });
      });
    });
  }
  // Tooltips show by CSS; this keeps a bubble inside the window.
  function initTooltips() {
    each(doc.querySelectorAll(".lc-tooltip"), function (t) {
      var bubble = t.querySelector(".lc-tooltip-bubble");
      if (!bubble) return;
      function place() {
        bubble.style.marginLeft = "";
        var r = bubble.getBoundingClientRect(), room = doc.documentElement.clientWidth - 8;
        if (r.left < 8) bubble.style.marginLeft = (8 - r.left) + "px";
        else if (r.right > room) bubble.style.marginLeft = (room - r.right) + "px";
      }
      t.addEventListener("mouseenter", place);
      t.addEventListener("focusin", place);
    });
  }
  function initViews() {
    var views = doc.querySelectorAll(".lc-content .lc-view");
    var titles = [];
    each(views, function (v) {
      var t = v.getAttribute("data-view");
      if (t && titles.indexOf(t) < 0) titles.push(t);
    });
    if (titles.length < 2) return;
    var stored = null;
    try { stored = window.localStorage.getItem("lectern-view"); } catch (e) { /* file:// */ }
    var bar = doc.createElement("div");
    bar.className = "lc-view-select";
    var label = doc.createElement("label");
    label.textContent = "View ";
    var menu = doc.createElement("select");
    titles.forEach(function (t) {
      var o = doc.createElement("option");
      o.value = o.textContent = t;
      menu.appendChild(o);
    });
    label.appendChild(menu);
    bar.appendChild(label);
    var content = views[0].closest(".lc-content") || views[0].parentNode;
    content.insertBefore(bar, content.firstChild);
    content.classList.add("lc-views-on");
    function show(t) {
      menu.value = t;
      each(views, function (v) { v.hidden = v.getAttribute("data-view") !== t; });
      each(doc.querySelectorAll(".lc-toc a[href^='#']"), function (a) {
        var id = a.getAttribute("href").slice(1);
        try { id = decodeURIComponent(id); } catch (e) { /* as written */ }
        var h = doc.getElementById(id);
        var v = h && h.closest(".lc-view");
        if (a.parentNode) a.parentNode.hidden = !!(v && v.hidden);
      });
    }
    menu.addEventListener("change", function () { store("lectern-view", menu.value); show(menu.value); });
    show(titles.indexOf(stored) >= 0 ? stored : titles[0]);
  }
  function initPanel() {
    var panel = doc.querySelector(".lc-content .lc-panel");
    var toc = doc.querySelector(".lc-toc");
    if (!panel || !toc || window.getComputedStyle(toc).display === "none") return;
    toc.appendChild(panel);
    toc.classList.add("lc-toc-panel");
  }
  function initAccordionHash() {
    function openTarget() {
      var id;
      try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      var el = id && doc.getElementById(id);
      for (var p = el; p; p = p.parentElement) {
        if (p.tagName === "DETAILS") p.open = true;
      }
      if (el && el.tagName === "DETAILS") el.scrollIntoView();
    }
    each(doc.querySelectorAll("details.lc-accordion[id]"), function (d) {
      d.addEventListener("toggle", function () {
        if (d.open && window.history && history.replaceState) history.replaceState(null, "", "#" + encodeURIComponent(d.id));
      });
    });
    window.addEventListener("hashchange", openTarget);
    openTarget();
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
    initNav();
    initMenu();
    initTabs();
    initCopy();
    initComponentCopy();
    initTooltips();
    initViews();
    initPanel();
    initAccordionHash();
    initScrollSpy();
  });
})();

// Lectern page actions: the "Copy page" button and the contextual menu
// (docs.json contextual), which the page shows from the start (without
// script, a "View as Markdown" button still leads to it). The page's
// Markdown is PAGE.md beside it (data-markdown). Where it cannot be fetched (an export opened from
// file://) or the clipboard refuses it, "Copy page" opens the Markdown
// instead. Keyboard: Enter or Space on the menu button opens the menu,
// the arrow keys, Home and End move in it, Escape and Tab close it.
(function () {
  "use strict";
  var doc = document;

  function ready(fn) {
    if (doc.readyState !== "loading") fn();
    else doc.addEventListener("DOMContentLoaded", fn);
  }

  // copyText resolves once text is on the clipboard.
  function copyText(text) {
    function fallback() {
      var ta = doc.createElement("textarea");
      ta.value = text;
      ta.setAttribute("readonly", "");
      ta.style.position = "fixed";
      ta.style.opacity = "0";
      doc.body.appendChild(ta);
      ta.select();
      var ok = false;
      try { ok = doc.execCommand("copy"); } catch (e) { /* not allowed */ }
      doc.body.removeChild(ta);
      return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(text).catch(fallback);
    }
    return fallback();
  }

  ready(function () {
    var box = doc.getElementById("page-context-menu");
    if (!box) return;
    var md = box.getAttribute("data-markdown") || "";
    var button = box.querySelector(".lc-page-menu-button");
    var menu = box.querySelector(".lc-page-menu");
    var status = box.querySelector(".lc-page-actions-status");
    var mainLabel = box.querySelector(".lc-page-action-label");
    box.setAttribute("data-ready", "");

    // The Markdown, fetched once: when the pointer or the focus reaches
    // an action, so that a click finds it there.
    var text = null, pending = null;
    function markdown() {
      if (text !== null) return Promise.resolve(text);
      if (!pending) {
        pending = fetch(md, { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) throw new Error("HTTP " + r.status);
          return r.text();
        }).then(function (t) { text = t; return t; }, function (e) { pending = null; throw e; });
      }
      return pending;
    }
    function prefetch(e) {
      if (e.target.closest && e.target.closest("[data-action=copy]")) markdown().catch(function () { /* at the click */ });
    }
    box.addEventListener("pointerover", prefetch);
    box.addEventListener("focusin", prefetch);

    var timer = 0;
    function say(msg, label) {
      if (status) status.textContent = msg;
      if (mainLabel && label) {
        var was = mainLabel.getAttribute("data-label") || mainLabel.textContent;
        mainLabel.setAttribute("data-label", was);
        mainLabel.textContent = label;
        box.classList.add("lc-copied");
        clearTimeout(timer);
        timer = setTimeout(function () {
          mainLabel.textContent = was;
          box.classList.remove("lc-copied");
          if (status) status.textContent = "";
        }, 2000);
      }
    }
    function openMarkdown() { window.location.href = md; }
    function copyPage() {
      markdown().then(copyText).then(function () {
        say("Page copied as Markdown", "Copied");
      }, openMarkdown);
    }
    function pageLink() {
      var canon = doc.querySelector("link[rel=canonical]");
      if (canon && canon.href) return canon.href;
      return window.location.href.split("#")[0];
    }

    function items() { return Array.prototype.slice.call(menu.querySelectorAll("[role=menuitem]")); }
    function outside(e) { if (!box.contains(e.target)) close(false); }
    function open(at) {
      menu.hidden = false;
      button.setAttribute("aria-expanded", "true");
      doc.addEventListener("pointerdown", outside, true);
      var list = items();
      if (list.length) list[at < 0 ? list.length - 1 : 0].focus();
    }
    function close(refocus) {
      if (menu.hidden) return;
      menu.hidden = true;
      button.setAttribute("aria-expanded", "false");
      doc.removeEventListener("pointerdown", outside, true);
      if (refocus) button.focus();
    }
    button.addEventListener("click", function () {
      if (menu.hidden) open(0);
      else close(true);
    });
    button.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        open(e.key === "ArrowUp" ? -1 : 0);
      }
    });
    menu.addEventListener("keydown", function (e) {
      var list = items(), i = list.indexOf(doc.activeElement), n = list.length;
      switch (e.key) {
        case "ArrowDown": e.preventDefault(); list[(i + 1) % n].focus(); break;
        case "ArrowUp": e.preventDefault(); list[(i - 1 + n) % n].focus(); break;
        case "Home": e.preventDefault(); list[0].focus(); break;
        case "End": e.preventDefault(); list[n - 1].focus(); break;
        case "Escape": e.preventDefault(); close(true); break;
        case "Tab": close(false); break;
        case " ":
          // Space activates a link item as Enter does.
          if (doc.activeElement && doc.activeElement.tagName === "A") { e.preventDefault(); doc.activeElement.click(); }
          break;
      }
    });
    box.addEventListener("click", function (e) {
      var el = e.target.closest ? e.target.closest("[data-action]") : null;
      if (!el) return;
      var action = el.getAttribute("data-action");
      if (action === "copy") {
        copyPage();
        close(menu.contains(el));
      } else if (action === "link") {
        copyText(pageLink()).then(function () { say("Link copied", "Link copied"); }, function () { say("The link could not be copied"); });
        close(true);
      } else if (action === "view") {
        close(false); // the link is followed
      }
    });
  });
})();

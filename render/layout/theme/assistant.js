// Lectern AI assistant: the "Ask AI" button opens a panel with a question
// box. A question is sent as JSON {"question": "..."} with POST to the
// endpoint of <meta name="lectern-assistant-url">, which answers
// {"answer": "...", "sources": [{"title": "...", "url": "..."}]}: the answer
// is shown as text, the sources as links. Without an http(s) endpoint the
// button stays hidden and nothing is sent. Vanilla JavaScript, no
// dependencies.
(function () {
  "use strict";
  var doc = document;
  var meta = doc.querySelector('meta[name="lectern-assistant-url"]');
  var endpoint = meta ? (meta.getAttribute("content") || "").trim() : "";

  function ready(fn) {
    if (doc.readyState !== "loading") fn();
    else doc.addEventListener("DOMContentLoaded", fn);
  }
  function el(tag, cls, text) {
    var e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }

  // safeURL resolves a source's URL against the site root and keeps it only
  // when following it is harmless (http, https, or the page's own scheme).
  function safeURL(raw, root) {
    if (typeof raw !== "string" || raw === "") return "";
    var u;
    try { u = new URL(raw, new URL(root || "", window.location.href)); } catch (e) { return ""; }
    if (u.protocol === "http:" || u.protocol === "https:" || u.protocol === window.location.protocol) return u.href;
    return "";
  }

  ready(function () {
    var button = doc.querySelector(".lc-assistant-button");
    var panel = doc.getElementById("lc-assistant");
    if (!button || !panel || !/^https?:\/\//i.test(endpoint)) return;
    var form = panel.querySelector(".lc-assistant-form");
    var input = panel.querySelector(".lc-assistant-input");
    var send = panel.querySelector(".lc-assistant-send");
    var log = panel.querySelector(".lc-assistant-log");
    var closer = panel.querySelector(".lc-assistant-close");
    if (!form || !input || !log) return;
    var root = panel.getAttribute("data-root") || "";
    var busy = false;

    button.hidden = false;
    function open() {
      panel.hidden = false;
      button.setAttribute("aria-expanded", "true");
      input.focus();
    }
    function close() {
      panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
      button.focus();
    }
    button.addEventListener("click", function () { if (panel.hidden) open(); else close(); });
    if (closer) closer.addEventListener("click", close);
    panel.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { e.preventDefault(); close(); }
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        ask();
      }
    });
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      ask();
    });

    function showAnswer(box, data) {
      box.textContent = "";
      box.classList.remove("lc-assistant-pending");
      var answer = data && typeof data.answer === "string" ? data.answer : "";
      box.appendChild(el("p", "lc-assistant-text", answer || "No answer."));
      var sources = data && Array.isArray(data.sources) ? data.sources : [];
      var list = el("ul", "lc-assistant-sources");
      sources.forEach(function (s) {
        if (!s) return;
        var href = safeURL(s.url, root);
        if (!href) return;
        var li = el("li");
        var a = el("a", "", typeof s.title === "string" && s.title ? s.title : href);
        a.href = href;
        if (new URL(href).origin !== window.location.origin) a.rel = "noopener";
        li.appendChild(a);
        list.appendChild(li);
      });
      if (list.children.length) {
        box.appendChild(el("p", "lc-assistant-sources-title", "Sources"));
        box.appendChild(list);
      }
    }
    function showError(box, msg) {
      box.textContent = "";
      box.classList.remove("lc-assistant-pending");
      box.classList.add("lc-assistant-error");
      box.appendChild(el("p", "lc-assistant-text", msg));
    }

    function ask() {
      var q = input.value.trim();
      if (!q || busy) return;
      busy = true;
      if (send) send.disabled = true;
      log.appendChild(el("p", "lc-assistant-question", q));
      var box = el("div", "lc-assistant-answer lc-assistant-pending", "Thinking…");
      log.appendChild(box);
      input.value = "";
      log.scrollTop = log.scrollHeight;
      fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify({ question: q }),
        mode: "cors",
        redirect: "follow"
      }).then(function (r) {
        if (!r.ok) throw new Error("The assistant answered with HTTP " + r.status + ".");
        return r.json();
      }).then(function (data) {
        showAnswer(box, data);
      }, function (err) {
        showError(box, err && /^The assistant/.test(err.message) ? err.message : "The assistant could not be reached.");
      }).then(function () {
        busy = false;
        if (send) send.disabled = false;
        log.scrollTop = log.scrollHeight;
      });
    }
  });
})();

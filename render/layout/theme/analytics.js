// Lectern web analytics, without cookies or storage: events are sent to
// the endpoint of <meta name="lectern-analytics-url"> (an http(s) URL, or
// the site's own /_lectern/analytics) as JSON text with
// navigator.sendBeacon, or fetch with keepalive where it is missing:
//   on page load {"type": "pageview", "path", "referrer", "title", "ts"}
//   on a vote    {"type": "feedback", "path", "helpful", "comment"}
//                (the "Was this page helpful?" box, .lc-feedback)
// and the reports of the site's other features, between their markers
// (which the self-hosted runtime removes with the feature).
// Nothing is sent without a usable endpoint, from file://, or while the
// page is prerendered.
(function () {
  "use strict";
  var doc = document;
  var meta = doc.querySelector('meta[name="lectern-analytics-url"]');
  var endpoint = meta ? (meta.getAttribute("content") || "").trim() : "";
  var web = /^https?:$/.test(window.location.protocol);
  if (!web || !(/^https?:\/\//i.test(endpoint) || (endpoint.charAt(0) === "/" && endpoint.charAt(1) !== "/"))) return;

  function send(ev) {
    ev.path = window.location.pathname;
    var body = JSON.stringify(ev);
    try {
      if (navigator.sendBeacon && navigator.sendBeacon(endpoint, body)) return;
    } catch (e) {
      // fall back to fetch
    }
    if (window.fetch) {
      fetch(endpoint, {
        method: "POST",
        body: body,
        headers: { "Content-Type": "text/plain;charset=UTF-8" },
        keepalive: true,
        mode: "no-cors",
        credentials: "omit"
      }).catch(function () { /* best effort */ });
    }
  }

  function pageview() {
    send({ type: "pageview", referrer: doc.referrer || "", title: doc.title || "", ts: new Date().toISOString() });
  }
  if (doc.prerendering) doc.addEventListener("prerenderingchange", pageview, { once: true });
  else pageview();

  /*lectern:search*/
  // After a search: {"type": "search", "path", "query", "results",
  // "clicked"}, on each "lectern:search" event of search.js.
  doc.addEventListener("lectern:search", function (e) {
    var d = e.detail || {};
    if (typeof d.query !== "string" || !d.query) return;
    send({ type: "search", query: d.query.slice(0, 200), results: d.results | 0, clicked: typeof d.clicked === "string" ? d.clicked : "" });
  });
  /*/lectern:search*/

  function ready(fn) {
    if (doc.readyState !== "loading") fn();
    else doc.addEventListener("DOMContentLoaded", fn);
  }
  // The feedback box: a vote, then an optional comment.
  ready(function () {
    var box = doc.querySelector(".lc-feedback");
    if (!box) return;
    var form = box.querySelector(".lc-feedback-form");
    var comment = box.querySelector(".lc-feedback-comment");
    var status = box.querySelector(".lc-feedback-status");
    var vote = null, sent = false;
    box.hidden = false;
    // A vote whose comment is never sent is sent when the page goes
    // (pagehide: not when the reader only switches tabs, who may come
    // back to finish the comment).
    function flush() {
      if (vote === null || sent) return;
      sent = true;
      send({ type: "feedback", helpful: vote, comment: comment ? Array.from(comment.value.trim()).slice(0, 2000).join("") : "" });
    }
    window.addEventListener("pagehide", flush);
    function thanks(msg) {
      box.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
      if (form) form.hidden = true;
      if (status) status.textContent = msg;
    }
    box.querySelectorAll(".lc-feedback-vote").forEach(function (b) {
      b.addEventListener("click", function () {
        if (sent) return;
        vote = b.getAttribute("data-helpful") === "true";
        box.querySelectorAll(".lc-feedback-vote").forEach(function (x) { x.setAttribute("aria-pressed", x === b ? "true" : "false"); });
        if (form && comment) {
          form.hidden = false;
          comment.focus();
        } else {
          flush();
          thanks("Thanks for the feedback.");
        }
      });
    });
    if (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        if (vote === null) return;
        flush();
        thanks("Thanks for the feedback.");
      });
    }
  });
})();

// Lectern web analytics: on page load, one page view is sent to the
// endpoint of <meta name="lectern-analytics-url"> as JSON text
// {"path", "referrer", "title", "ts"} (ts: ISO 8601 time), with
// navigator.sendBeacon, or fetch with keepalive where it is missing.
// Nothing is sent without an http(s) endpoint or from file://.
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="lectern-analytics-url"]');
  var endpoint = meta ? (meta.getAttribute("content") || "").trim() : "";
  if (!/^https?:\/\//i.test(endpoint) || window.location.protocol === "file:") return;
  var body = JSON.stringify({
    path: window.location.pathname,
    referrer: document.referrer || "",
    title: document.title || "",
    ts: new Date().toISOString()
  });
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
    }).catch(function () { /* page views are best effort */ });
  }
})();

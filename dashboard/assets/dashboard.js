// Lectern dashboard: copy buttons and live parts. Every page works without
// this script.
//
// Copy buttons (button.copy, hidden in the HTML) are shown when the
// clipboard API is there; one copies data-copy, or the value (or text) of
// the element data-copy-from names.
//
// A live part is an element with data-live="URL": while it keeps the
// attribute, the script fetches URL every data-every milliseconds (2000
// by default), a fragment of HTML from the server, and puts it in the
// element's place. The server leaves data-live out once nothing more will
// change (a build ended), which stops the polling. Polling pauses while
// the tab is hidden. The part itself should carry aria-live so screen
// readers hear what changed.
(function () {
  "use strict";
  var announce = function (text) {
    var el = document.getElementById("announce");
    if (el) el.textContent = text;
  };

  var wireCopy = function (root) {
    if (!navigator.clipboard || !window.isSecureContext) return;
    root.querySelectorAll("button.copy").forEach(function (b) {
      if (b.dataset.wired) return;
      b.dataset.wired = "1";
      b.hidden = false;
      var label = b.textContent;
      b.addEventListener("click", function () {
        var from = b.getAttribute("data-copy-from");
        var el = from ? document.getElementById(from) : null;
        var text = el ? (el.value !== undefined ? el.value : el.textContent) : b.getAttribute("data-copy");
        navigator.clipboard.writeText(text).then(function () {
          b.textContent = "Copied";
          announce("Copied to the clipboard.");
          setTimeout(function () { b.textContent = label; }, 2000);
        }, function () {
          b.textContent = "Copy failed: select and copy it";
          announce("Could not copy: select the text and copy it.");
          if (el && el.select) el.select();
        });
      });
    });
  };

  var live = function (el) {
    var url = el.getAttribute("data-live");
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    var tick = function () {
      if (document.hidden) { setTimeout(tick, every); return; }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (res) {
        if (res.redirected) {
          // The session ended (the answer is the sign-in page): reload, so
          // the reader sees the sign-in page itself, not it in a part.
          location.reload();
          return null;
        }
        if (!res.ok) throw new Error(String(res.status));
        return res.text();
      }).then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.body.firstElementChild;
        if (!next) return;
        var focused = el.contains(document.activeElement) ? document.activeElement.id : "";
        el.replaceWith(next);
        el = next;
        wireCopy(el);
        if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
        if (el.hasAttribute("data-live")) setTimeout(tick, every);
      }).catch(function () {
        setTimeout(tick, every * 2); // a network blip: try again later
      });
    };
    setTimeout(tick, every);
  };

  wireCopy(document);
  document.querySelectorAll("[data-live]").forEach(live);
})();

// Lectern dashboard: copy buttons. Every page works without this script;
// it only shows the buttons (hidden in the HTML) when the clipboard API is
// there, and copies data-copy, or the value of the element data-copy-from
// names.
(function () {
  "use strict";
  if (!navigator.clipboard || !window.isSecureContext) return;
  var announce = function (text) {
    var el = document.getElementById("announce");
    if (el) el.textContent = text;
  };
  document.querySelectorAll("button.copy").forEach(function (b) {
    b.hidden = false;
    var label = b.textContent;
    b.addEventListener("click", function () {
      var from = b.getAttribute("data-copy-from");
      var text = from ? document.getElementById(from).value : b.getAttribute("data-copy");
      navigator.clipboard.writeText(text).then(function () {
        b.textContent = "Copied";
        announce("Copied to the clipboard.");
        setTimeout(function () { b.textContent = label; }, 2000);
      }, function () {
        b.textContent = "Copy failed: select and copy it";
        announce("Could not copy: select the text and copy it.");
        if (from) document.getElementById(from).select();
      });
    });
  });
})();

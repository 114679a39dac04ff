// Lectern theme init: loaded blocking in <head> so the chosen colour scheme
// applies before the first paint. No inline script, so a strict CSP works.
(function () {
  var root = document.documentElement;
  root.className += (root.className ? " " : "") + "lc-js";
  // html[data-theme-strict]: the configuration fixes the mode (the page
  // has no toggle), so a choice stored earlier does not apply.
  if (!root.hasAttribute("data-theme-strict")) {
    try {
      var t = window.localStorage.getItem("lectern-theme");
      if (t === "dark" || t === "light") root.setAttribute("data-theme", t);
    } catch (e) {
      // localStorage can be unavailable (file://, privacy settings).
    }
  }
  // html.dark follows the mode in use, as on Mintlify, for the stylesheets
  // of the repository (html[data-theme] or else the system's preference).
  var query = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function sync() {
    var mode = root.getAttribute("data-theme");
    var dark = mode ? mode === "dark" : !!(query && query.matches);
    if (root.classList.contains("dark") !== dark) root.classList.toggle("dark", dark);
  }
  sync();
  if (query && query.addEventListener) query.addEventListener("change", sync);
  if (window.MutationObserver) new MutationObserver(sync).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
})();

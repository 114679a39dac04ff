// Lectern theme init: loaded blocking in <head> so the chosen colour scheme
// applies before the first paint. No inline script, so a strict CSP works.
(function () {
  var root = document.documentElement;
  root.className += (root.className ? " " : "") + "lc-js";
  try {
    var t = window.localStorage.getItem("lectern-theme");
    if (t === "dark" || t === "light") root.setAttribute("data-theme", t);
  } catch (e) {
    // localStorage can be unavailable (file://, privacy settings).
  }
})();

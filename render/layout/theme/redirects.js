// Wildcard redirects, loaded by 404.html only (redirects_wildcard.go).
// The build appends the call with the site's configuration: {export,
// rules, exact, pages}. When the missing path matches a rule whose
// destination is a page of the site (or a file, or another host), the
// browser goes there; otherwise the 404 page stays.
(function (config) {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src || !config || !config.rules) return;
  // Its name carries a hash of its content (render: own_assets.go).
  var root = script.src.replace(/_lectern\/redirects(\.[0-9a-f]+)?\.js([?#].*)?$/, "");
  var rootPath;
  try {
    rootPath = new URL(root).pathname;
  } catch (e) {
    return;
  }
  var pages = {};
  config.pages.forEach(function (p) { pages[p] = true; });
  var exact = config.exact || {};

  function decode(s) {
    try { return decodeURIComponent(s); } catch (e) { return s; }
  }
  function encodePath(p) {
    return p.split("/").map(encodeURIComponent).join("/");
  }

  // segmentsOf returns the decoded segments of the missing path relative
  // to the site's root, without ".html" or a final "index", or null when
  // the path is not under the root.
  function segmentsOf(pathname) {
    var p;
    if (pathname.indexOf(rootPath) === 0) {
      p = pathname.slice(rootPath.length);
    } else if (pathname + "/" === rootPath) {
      p = "";
    } else {
      return null;
    }
    p = p.replace(/\/+$/, "").replace(/\.html$/, "");
    p = p === "index" ? "" : p.replace(/\/index$/, "");
    return p.split("/").filter(function (s) { return s !== ""; }).map(decode);
  }

  // match returns the destination segments (or, for another host, the
  // URL) of the first rule matching segs, or null.
  function match(segs) {
    for (var r = 0; r < config.rules.length; r++) {
      var rule = config.rules[r];
      var params = matchRule(rule.s, segs);
      if (!params) continue;
      var out = [];
      rule.d.forEach(function (d) {
        if (d.p === undefined) {
          out.push(d.l === undefined ? "" : d.l);
          return;
        }
        params[d.p].forEach(function (v) { out.push(rule.x ? encodeURIComponent(v) : v); });
      });
      return { segs: out, suffix: rule.q || "", external: !!rule.x };
    }
    return null;
  }

  function matchRule(src, segs) {
    var params = {};
    for (var i = 0; i < src.length; i++) {
      var s = src[i];
      if (s.p === undefined) {
        if (segs[i] !== s.l) return null;
        continue;
      }
      if (s.m === "*" || s.m === "+") {
        var rest = segs.slice(i);
        if (s.m === "+" && rest.length === 0) return null;
        params[s.p] = rest;
        return params;
      }
      if (s.m === "?" && i >= segs.length) {
        params[s.p] = [];
        continue;
      }
      if (i >= segs.length) return null;
      params[s.p] = [segs[i]];
    }
    return segs.length <= src.length ? params : null;
  }

  // pageOf returns the page a site path names, as the build resolves
  // links: with or without an extension, or as folder/index.
  function pageOf(p) {
    p = p.replace(/\/+$/, "").replace(/\.(mdx|md|html)$/, "");
    if (p === "" || p === "index") return "index";
    if (pages[p]) return p;
    if (pages[p + "/index"]) return p + "/index";
    return null;
  }

  function pageURL(page) {
    if (page === "index") return root + (config.export ? "index.html" : "");
    return root + encodePath(page) + (config.export ? ".html" : "");
  }

  // target returns where the missing path leads, or "".
  function target(pathname, suffix) {
    var segs = segmentsOf(pathname);
    if (!segs) return "";
    for (var hops = 0; hops < 5; hops++) {
      var m = match(segs);
      if (!m) return "";
      if (m.external) return m.segs.join("/") + (m.suffix || suffix);
      if (m.suffix) suffix = m.suffix;
      var p = m.segs.join("/");
      var page = pageOf(p);
      if (page) return pageURL(page) + suffix;
      if (Object.prototype.hasOwnProperty.call(exact, p)) {
        var e = exact[p];
        return (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(e) ? e : root + e);
      }
      var last = m.segs[m.segs.length - 1] || "";
      if (last.indexOf(".") > 0 && !/\.(mdx|md|html)$/.test(last)) return root + encodePath(p) + suffix;
      segs = m.segs;
    }
    return "";
  }

  var to = target(location.pathname, location.search + location.hash);
  if (to && to !== location.href) location.replace(to);
})

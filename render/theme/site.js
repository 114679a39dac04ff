// Lectern site script: progressive enhancements only. Pages work without it.
(function () {
  "use strict";
  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }
  ready(function () {
    // Mobile navigation.
    var button = document.querySelector(".lc-menu-button");
    if (button) {
      button.addEventListener("click", function () {
        var open = document.body.classList.toggle("lc-sidebar-open");
        button.setAttribute("aria-expanded", open ? "true" : "false");
      });
    }
    // Tabs and code groups become tab bars.
    function tabify(container, panels, titleOf) {
      if (panels.length < 2) return;
      var bar = document.createElement("div");
      bar.className = "lc-tabbar";
      bar.setAttribute("role", "tablist");
      panels.forEach(function (panel, i) {
        var b = document.createElement("button");
        b.type = "button";
        b.setAttribute("role", "tab");
        b.textContent = titleOf(panel, i);
        b.addEventListener("click", function () { select(i); });
        bar.appendChild(b);
      });
      function select(n) {
        panels.forEach(function (panel, i) {
          panel.hidden = i !== n;
          bar.children[i].setAttribute("aria-selected", i === n ? "true" : "false");
        });
      }
      container.insertBefore(bar, container.firstChild);
      container.classList.add("lc-tabbed");
      select(0);
    }
    function children(el, cls) {
      return Array.prototype.filter.call(el.children, function (c) { return c.classList.contains(cls); });
    }
    document.querySelectorAll(".lc-tabs").forEach(function (tabs) {
      tabify(tabs, children(tabs, "lc-tab"), function (p, i) {
        var t = p.querySelector(".lc-tab-title");
        return t ? t.textContent : "Tab " + (i + 1);
      });
    });
    document.querySelectorAll(".lc-code-group").forEach(function (group) {
      tabify(group, children(group, "lc-code"), function (p, i) {
        var t = p.querySelector(".lc-code-title");
        var code = p.querySelector("code[class^='language-']");
        return t ? t.textContent : code ? code.className.replace("language-", "") : "Code " + (i + 1);
      });
    });
    // Copy buttons on code blocks.
    if (navigator.clipboard) {
      document.querySelectorAll(".lc-code").forEach(function (block) {
        var code = block.querySelector("code");
        if (!code) return;
        var b = document.createElement("button");
        b.type = "button";
        b.className = "lc-copy";
        b.textContent = "Copy";
        b.addEventListener("click", function () {
          navigator.clipboard.writeText(code.textContent).then(function () {
            b.textContent = "Copied";
            setTimeout(function () { b.textContent = "Copy"; }, 1500);
          });
        });
        block.appendChild(b);
      });
    }
  });
})();

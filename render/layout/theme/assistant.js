// Lectern AI assistant: the "Ask AI" button, Cmd/Ctrl+I, or ?assistant=open
// in the page's URL open a panel with a question box. The conversation is
// sent as JSON {"messages": [{"role": "user"|"assistant", "content": "..."}]}
// (the reader's question last) with POST to the endpoint of
// <meta name="lectern-assistant-url">: an http(s) URL, or the site's own
// /_lectern/assistant. The answer streams back as server-sent events
// ("text" {"text"}, "citation" {"n", "title", "url"}, "done" {"found",
// "id"}), or, from an endpoint that does not stream, as JSON {"answer",
// "sources": [{"title", "url"}]}. An answer with an id can be rated
// helpful or not (POST {"id", "helpful"} to the endpoint + "/feedback").
// Without a usable endpoint the button stays hidden and nothing is sent.
// Vanilla JavaScript, no dependencies; text is only ever set as text.
(function () {
  "use strict";
  var doc = document;
  var meta = doc.querySelector('meta[name="lectern-assistant-url"]');
  var endpoint = meta ? (meta.getAttribute("content") || "").trim() : "";
  var MAX_TURNS = 40, MAX_BODY = 30000;

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
  // bytes is the length of s in UTF-8, as the server counts the body.
  function bytes(s) {
    return window.TextEncoder ? new TextEncoder().encode(s).length : s.length * 3;
  }
  // fail is an error whose message the reader sees.
  function fail(msg) {
    var e = new Error(msg);
    e.mine = true;
    return e;
  }
  // usable: an absolute http(s) endpoint, or the site's own path on a page
  // served over http(s) (a page opened from file:// has no server).
  function usable(u) {
    if (/^https?:\/\//i.test(u)) return true;
    return u.charAt(0) === "/" && u.charAt(1) !== "/" && /^https?:$/.test(window.location.protocol);
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

  // inline appends text to parent with `code`, **bold** and [n] citation
  // markers (links to the citation's page once it is known).
  function inline(parent, text, cites) {
    var re = /`([^`]+)`|\*\*([^*]+)\*\*|\[(\d{1,2})\]/g, last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(doc.createTextNode(text.slice(last, m.index)));
      if (m[1] !== undefined) parent.appendChild(el("code", "", m[1]));
      else if (m[2] !== undefined) parent.appendChild(el("strong", "", m[2]));
      else {
        var c = cites[m[3]];
        var sup = el("sup", "lc-assistant-cite");
        if (c && c.href) {
          var a = el("a", "", "[" + m[3] + "]");
          a.href = c.href;
          a.title = c.title;
          sup.appendChild(a);
        } else sup.textContent = "[" + m[3] + "]";
        parent.appendChild(sup);
      }
      last = re.lastIndex;
    }
    if (last < text.length) parent.appendChild(doc.createTextNode(text.slice(last)));
  }

  // render draws an answer's text: paragraphs, "> " quotes, "- " and
  // "1. " list items, ``` fences.
  function render(box, text, cites) {
    box.textContent = "";
    var blocks = text.split(/\n{2,}/);
    blocks.forEach(function (b) {
      b = b.replace(/^\n+|\s+$/g, "");
      if (!b) return;
      if (/^```/.test(b)) {
        var pre = el("pre"), code = el("code", "", b.replace(/^```[^\n]*\n?/, "").replace(/\n?```$/, ""));
        pre.appendChild(code);
        box.appendChild(pre);
        return;
      }
      var lines = b.split("\n");
      if (lines.every(function (l) { return /^>\s?/.test(l); })) {
        var q = el("blockquote");
        inline(q, lines.map(function (l) { return l.replace(/^>\s?/, ""); }).join(" "), cites);
        box.appendChild(q);
        return;
      }
      if (lines.every(function (l) { return /^\s*([-*]|\d+\.)\s/.test(l); })) {
        var list = el(/^\s*\d/.test(lines[0]) ? "ol" : "ul");
        lines.forEach(function (l) {
          var li = el("li");
          inline(li, l.replace(/^\s*([-*]|\d+\.)\s/, ""), cites);
          list.appendChild(li);
        });
        box.appendChild(list);
        return;
      }
      var p = el("p");
      inline(p, b.replace(/^#+\s*/, ""), cites);
      box.appendChild(p);
    });
  }

  // events reads a text/event-stream body, calling on(event, data) for
  // each event whose data is JSON.
  function events(body, on) {
    var reader = body.getReader(), dec = new TextDecoder(), buf = "";
    function dispatch(raw) {
      var name = "message", data = [];
      raw.split("\n").forEach(function (line) {
        if (line.indexOf("event:") === 0) name = line.slice(6).trim();
        else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
      });
      if (!data.length) return;
      var v;
      try { v = JSON.parse(data.join("\n")); } catch (e) { return; }
      on(name, v);
    }
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) { buf = buf.replace(/\r/g, "\n"); if (buf.trim()) dispatch(buf); return; }
        // Line ends are normalised on the whole buffer, a trailing "\r"
        // kept until the next chunk says whether "\n" follows it.
        buf = (buf + dec.decode(r.value, { stream: true })).replace(/\r\n/g, "\n").replace(/\r(?!$)/g, "\n");
        var i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          dispatch(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
        return pump();
      });
    }
    return pump();
  }

  ready(function () {
    var button = doc.querySelector(".lc-assistant-button");
    var panel = doc.getElementById("lc-assistant");
    if (!button || !panel || !usable(endpoint)) return;
    var form = panel.querySelector(".lc-assistant-form");
    var input = panel.querySelector(".lc-assistant-input");
    var send = panel.querySelector(".lc-assistant-send");
    var log = panel.querySelector(".lc-assistant-log");
    var closer = panel.querySelector(".lc-assistant-close");
    if (!form || !input || !log) return;
    var root = panel.getAttribute("data-root") || "";
    var busy = false;
    var messages = [];

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
    doc.addEventListener("keydown", function (e) {
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && (e.key === "i" || e.key === "I")) {
        e.preventDefault();
        if (panel.hidden) open(); else close();
      }
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
    if (/[?&]assistant=open(?:[&#]|$)/.test(window.location.href.split("#")[0])) open();

    // body returns the request body: the latest turns that fit.
    function body() {
      var turns = messages.slice(-MAX_TURNS), s;
      while (bytes(s = JSON.stringify({ messages: turns })) > MAX_BODY && turns.length > 1) turns = turns.slice(2);
      return s;
    }

    function sources(box, list) {
      var ul = el("ul", "lc-assistant-sources");
      list.forEach(function (s) {
        if (!s.href) return;
        var li = el("li");
        var a = el("a", "", (s.n ? "[" + s.n + "] " : "") + (s.title || s.href));
        a.href = s.href;
        if (new URL(s.href).origin !== window.location.origin) a.rel = "noopener";
        li.appendChild(a);
        ul.appendChild(li);
      });
      if (ul.children.length) {
        box.appendChild(el("p", "lc-assistant-sources-title", "Sources"));
        box.appendChild(ul);
      }
    }

    function feedback(box, id) {
      var row = el("div", "lc-assistant-feedback");
      row.appendChild(el("span", "", "Was this helpful?"));
      [["Yes", true], ["No", false]].forEach(function (o) {
        var b = el("button", "lc-assistant-rate", o[0]);
        b.type = "button";
        b.addEventListener("click", function () {
          row.querySelectorAll("button").forEach(function (x) { x.disabled = true; });
          fetch(endpoint.replace(/\/+$/, "") + "/feedback", {
            method: "POST", headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ id: id, helpful: o[1] })
          }).then(function (r) {
            row.textContent = r.ok ? "Thanks for the feedback." : "The feedback could not be sent.";
          }, function () { row.textContent = "The feedback could not be sent."; });
        });
        row.appendChild(b);
      });
      box.appendChild(row);
    }

    function ask() {
      var q = input.value.trim();
      if (!q || busy) return;
      busy = true;
      if (send) send.disabled = true;
      messages.push({ role: "user", content: q });
      log.appendChild(el("p", "lc-assistant-question", q));
      var box = el("div", "lc-assistant-answer lc-assistant-pending", "Thinking…");
      box.setAttribute("aria-busy", "true");
      log.appendChild(box);
      input.value = "";
      log.scrollTop = log.scrollHeight;
      var text = "", cites = {}, list = [], id = "";
      var textBox = el("div", "lc-assistant-text");
      function draw() {
        box.classList.remove("lc-assistant-pending");
        if (!textBox.parentNode) { box.textContent = ""; box.appendChild(textBox); }
        render(textBox, text, cites);
        log.scrollTop = log.scrollHeight;
      }
      fetch(endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "text/event-stream, application/json" },
        body: body(),
        mode: "cors",
        redirect: "follow"
      }).then(function (r) {
        if (!r.ok) {
          return r.json().catch(function () { return null; }).then(function (d) {
            throw fail(d && typeof d.error === "string" && d.error ? d.error :
              r.status === 429 ? "Too many questions at once; ask again in a moment." : "The assistant answered with HTTP " + r.status + ".");
          });
        }
        if (/^text\/event-stream/i.test(r.headers.get("Content-Type") || "") && r.body) {
          return events(r.body, function (name, v) {
            if (name === "text" && typeof v.text === "string") { text += v.text; draw(); }
            else if (name === "citation" && v && typeof v.n === "number") {
              var c = { n: v.n, title: typeof v.title === "string" ? v.title : "", href: safeURL(v.url, root) };
              cites[v.n] = c;
              list.push(c);
              draw();
            } else if (name === "done" && v && typeof v.id === "string") id = v.id;
            else if (name === "error" && v && typeof v.error === "string") throw fail(v.error);
          });
        }
        return r.json().then(function (d) {
          text = d && typeof d.answer === "string" ? d.answer : "";
          (d && Array.isArray(d.sources) ? d.sources : []).forEach(function (s) {
            if (s) list.push({ title: typeof s.title === "string" ? s.title : "", href: safeURL(s.url, root) });
          });
        });
      }).then(function () {
        if (!text) text = "No answer.";
        draw();
        sources(box, list);
        if (id) feedback(box, id);
        messages.push({ role: "assistant", content: text });
      }, function (err) {
        box.textContent = "";
        box.classList.remove("lc-assistant-pending");
        box.classList.add("lc-assistant-error");
        box.appendChild(el("p", "lc-assistant-text", err && err.mine ? err.message : "The assistant could not be reached."));
        messages.pop();
      }).then(function () {
        box.removeAttribute("aria-busy");
        busy = false;
        if (send) send.disabled = false;
        log.scrollTop = log.scrollHeight;
      });
    }
  });
})();

// Lectern API playground: the "Try it" form of OpenAPI operation pages.
// Vanilla JavaScript, no dependencies. Nothing is sent until the reader
// clicks Send; the request then goes from the browser to the documented
// API with fetch(), and its status, headers and body are shown.
(function () {
  'use strict';

  var STYLE = [
    '.lc-playground{margin:0 0 1.5em;border:1px solid var(--lc-border,#ddd);border-radius:var(--lc-radius,8px)}',
    '.lc-playground>summary{cursor:pointer;padding:10px 14px;font-weight:600}',
    '.lc-pg-form{padding:0 14px 12px}',
    '.lc-pg-row{margin:8px 0}',
    '.lc-pg-label{display:block;font-size:.88rem}',
    '.lc-pg-input{display:block;width:100%;box-sizing:border-box;margin-top:4px;padding:6px 8px;font:inherit;font-size:.88rem;',
    'border:1px solid var(--lc-border,#ccc);border-radius:6px;background:transparent;color:inherit}',
    '.lc-pg-body{font-family:var(--lc-mono,monospace)}',
    '.lc-pg-send{padding:6px 16px;border:0;border-radius:6px;background:var(--lc-primary,#2563eb);color:#fff;font-weight:600;cursor:pointer}',
    '.lc-pg-send[disabled]{opacity:.6;cursor:progress}',
    '.lc-pg-note{font-size:.8rem;color:var(--lc-fg-soft,#666)}',
    '.lc-pg-result pre{max-height:360px;overflow:auto;padding:10px;background:var(--lc-code-bg,#f3f4f6);border-radius:6px;font-size:.82rem}',
    '.lc-pg-status{font-weight:600}'
  ].join('');

  function addStyle() {
    if (document.getElementById('lc-pg-style')) return;
    var s = document.createElement('style');
    s.id = 'lc-pg-style';
    s.textContent = STYLE;
    document.head.appendChild(s);
  }

  function fields(form, selector) {
    return Array.prototype.slice.call(form.querySelectorAll(selector));
  }

  // build returns {target, init} for the form, or throws an Error whose
  // message is shown to the reader.
  function build(form) {
    var method = form.getAttribute('data-method') || 'GET';
    var server = form.querySelector('[data-pg-server]');
    var base = (server ? server.value : '').trim().replace(/\/+$/, '');
    if (!/^https?:\/\//i.test(base)) {
      throw new Error('Enter the API server, starting with http:// or https://');
    }
    var path = form.getAttribute('data-path') || '/';
    var query = [];
    var headers = {};
    fields(form, '[data-in][data-name]').forEach(function (el) {
      if (el.hasAttribute('data-pg-auth')) return;
      var name = el.getAttribute('data-name');
      var where = el.getAttribute('data-in');
      var value = el.value;
      if (where === 'path') {
        if (value === '') throw new Error('The path parameter ' + name + ' is required');
        path = path.split('{' + name + '}').join(encodeURIComponent(value));
        return;
      }
      if (value === '') {
        if (el.required) throw new Error('The ' + where + ' parameter ' + name + ' is required');
        return;
      }
      if (where === 'query') query.push(encodeURIComponent(name) + '=' + encodeURIComponent(value));
      if (where === 'header') headers[name] = value;
    });
    var auth = form.querySelector('[data-pg-auth]');
    if (auth && auth.value !== '') {
      var kind = auth.getAttribute('data-pg-auth');
      if (kind === 'bearer') headers['Authorization'] = 'Bearer ' + auth.value;
      else if (kind === 'basic') headers['Authorization'] = 'Basic ' + btoa(auth.value);
      else if (kind === 'apiKey') {
        var where2 = auth.getAttribute('data-in');
        var key = auth.getAttribute('data-name');
        if (where2 === 'query') query.push(encodeURIComponent(key) + '=' + encodeURIComponent(auth.value));
        else if (where2 === 'header') headers[key] = auth.value;
      }
    }
    var init = { method: method, headers: headers, credentials: 'omit', mode: 'cors', redirect: 'follow' };
    var body = form.querySelector('[data-pg-body]');
    if (body && body.value.trim() !== '' && method !== 'GET' && method !== 'HEAD') {
      var type = form.getAttribute('data-content-type') || 'application/json';
      if (/json/i.test(type)) {
        try { JSON.parse(body.value); } catch (e) { throw new Error('The body is not valid JSON: ' + e.message); }
      }
      headers['Content-Type'] = type;
      init.body = body.value;
    }
    var target = base + path + (query.length ? (path.indexOf('?') >= 0 ? '&' : '?') + query.join('&') : '');
    return { target: target, init: init };
  }

  function show(form, status, headers, body) {
    var result = form.querySelector('[data-pg-result]');
    result.hidden = false;
    form.querySelector('[data-pg-status]').textContent = status;
    form.querySelector('[data-pg-headers]').textContent = headers;
    form.querySelector('[data-pg-response]').textContent = body;
  }

  function send(form, button) {
    var req;
    try {
      req = build(form);
    } catch (e) {
      show(form, e.message, '', '');
      return;
    }
    button.disabled = true;
    show(form, 'Sending ' + req.init.method + ' ' + req.target + ' …', '', '');
    var started = Date.now();
    fetch(req.target, req.init).then(function (res) {
      var lines = [];
      res.headers.forEach(function (v, k) { lines.push(k + ': ' + v); });
      return res.text().then(function (text) {
        var pretty = text;
        try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
        show(form, res.status + ' ' + res.statusText + ' · ' + (Date.now() - started) + ' ms', lines.join('\n'), pretty);
      });
    }).catch(function (e) {
      show(form, 'The request failed: ' + e.message +
        '. The API may not allow requests from this site (CORS), or it cannot be reached.', '', '');
    }).then(function () {
      button.disabled = false;
    });
  }

  function init() {
    if (!document.querySelector('[data-lc-playground]')) return;
    addStyle();
    document.addEventListener('click', function (ev) {
      var t = ev.target;
      var button = t && t.closest ? t.closest('[data-pg-send]') : null;
      if (!button) return;
      ev.preventDefault();
      var form = button.closest('.lc-pg-form');
      if (form) send(form, button);
    });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();

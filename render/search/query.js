// Lectern search engine: the reader's side of render/search, giving the
// same results as its Go side (query.go, excerpt.go). It loads the index's
// files as scripts (they work from file://), each calling LECTERN_SEARCH
// with its payload, a Snappy framed stream in base64; lecternStem
// (stem.js) and lecternUnsnap (unsnap.js) come before it.
// lecternSearchIndex(base) returns {search(query, limit) -> Promise of
// results (null when a newer query was asked meanwhile), warm() loading the
// meta file ahead and rehearsing a query, refresh(maxAge) forgetting the
// files loaded when older}.
function lecternSearchIndex(base) {
  "use strict";
  var K1 = 1.2, B = 0.75, MAX_TERM_CHUNKS = 4, MAX_EXPANSIONS = 24,
    PAIR_BONUS = 1, TITLE_BONUS = 3, F_EXACT = 1, F_STEM = 0.9, F_TYPO = 0.6, MIN_TYPO = 5, EXCERPT_WORDS = 24, MAX_WORD = 48,
    MAX_QUERY_WORDS = 16, TOP_SORTED = 100, FRAGMENT_GROUP = 8;
  var WORD = /[\p{L}\p{N}\p{M}]+/gu, BONUS = [0, 0.6, 1.2, 4];
  var files = {};
  var metaP = null, loadedAt = 0, stamp = "", stale = false;

  var pending = window.__lecternSearchPending || (window.__lecternSearchPending = {});
  if (!window.LECTERN_SEARCH) {
    window.LECTERN_SEARCH = function (data) {
      var s = document.currentScript;
      var f = s && pending[s.src];
      if (f) { delete pending[s.src]; f(data); }
    };
  }
  var utf8 = new TextDecoder();
  function decode(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return JSON.parse(utf8.decode(lecternUnsnap(bytes)));
  }
  function load(name) {
    if (files[name]) return files[name];
    var own = files;
    var p = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      // After refresh, the files whose names stay when they change
      // (all but the chunks, named by their content) are asked for
      // past any cache.
      s.src = base + name + (stamp && name.slice(0, 2) !== "c/" ? "?v=" + stamp : "");
      var got = false;
      pending[s.src] = function (data) {
        got = true;
        try { resolve(decode(data)); } catch (e) { reject(e); }
      };
      s.onload = function () { s.remove(); if (!got) reject(new Error("search: " + name + " is not an index file")); };
      s.onerror = function () { s.remove(); delete pending[s.src]; reject(new Error("search: " + name + " could not be loaded")); };
      document.head.appendChild(s);
    });
    own[name] = p;
    p.catch(function () {
      if (own[name] === p) delete own[name];
      if (own === files) stale = true; // not a failure from before refresh
    });
    return p;
  }
  // refresh forgets the files loaded when the meta file is older than
  // maxAge ms or a file failed to load: a page left open across a
  // deployment then reads the new deployment's meta file and fragments
  // rather than pairing the old meta file with files it no longer has.
  function refresh(maxAge) {
    if (!metaP || !stale && Date.now() - loadedAt < maxAge) return;
    files = {};
    metaP = null;
    stale = false;
    ranked = { q: null, p: null };
    stamp = String(Date.now());
  }
  // meta loads the meta file once, with each page's length term of BM25
  // worked out ahead (the same arithmetic as rank's, hoisted).
  function meta() {
    if (!metaP) {
      loadedAt = Date.now();
      metaP = load("meta.js").then(function (m) {
        var avg = Math.max(m.avg, 1);
        m.norm = new Float64Array(m.dl.length);
        for (var i = 0; i < m.dl.length; i++) m.norm[i] = K1 * (1 - B + B * (m.dl[i] || 0) / avg);
        return m;
      });
      var mine = metaP;
      metaP.catch(function () { if (metaP === mine) metaP = null; });
    }
    return metaP;
  }

  function utf8Len(w) {
    var n = 0;
    for (var i = 0; i < w.length; i++) {
      var c = w.charCodeAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : (c >= 0xd800 && c < 0xdc00) ? (i++, 4) : 3;
    }
    return n;
  }
  // lower lowercases w as Go's strings.ToLower does, a letter at a time:
  // toLowerCase writes a final Σ as ς, and İ as i and a combining dot.
  function lower(w) {
    if (!/[\u0130\u03a3]/.test(w)) return w.toLowerCase();
    return w.replace(/\u03a3/g, "\u03c3").replace(/\u0130/g, "i").toLowerCase();
  }
  // words returns the words of s with their places: [word, start, end,
  // camel-case parts].
  function words(s) {
    var out = [], m;
    WORD.lastIndex = 0;
    while ((m = WORD.exec(s))) {
      if (utf8Len(m[0]) > MAX_WORD) continue;
      out.push([lower(m[0]), m.index, m.index + m[0].length, camelParts(m[0])]);
    }
    return out;
  }
  // camelParts: as in Go (tokens.go), the lowercased parts of a word in
  // camel case, or null.
  function camelParts(o) {
    if (/[^\x00-\x7f]/.test(o)) return null;
    var parts = [], start = 0;
    for (var i = 1; i < o.length; i++) {
      var c = o.charAt(i), p = o.charAt(i - 1), up = c >= "A" && c <= "Z";
      var next = i + 1 < o.length && o.charAt(i + 1) >= "a" && o.charAt(i + 1) <= "z";
      if (up && ((p >= "a" && p <= "z") || (p >= "0" && p <= "9")) || up && p >= "A" && p <= "Z" && next) {
        parts.push(o.slice(start, i).toLowerCase());
        start = i;
      }
    }
    if (!start) return null;
    parts.push(o.slice(start).toLowerCase());
    return parts;
  }
  function isIn(w, set) {
    if (set.has(w[0])) return true;
    return !!w[3] && w[3].some(function (p) { return set.has(p); });
  }
  function runes(s) { return Array.from(s); }
  function firstRunes(s, n) { return runes(s).slice(0, n).join(""); }
  function commonPrefix(a, b) {
    var x = runes(a), y = runes(b), i = 0;
    while (i < x.length && i < y.length && x[i] === y[i]) i++;
    return x.slice(0, i).join("");
  }
  function startsWith(w, p) { return w.lastIndexOf(p, 0) === 0; }
  function oneEdit(a, b) {
    var x = runes(a), y = runes(b), i = 0;
    if (x.length < y.length) { var t = x; x = y; y = t; }
    var d = x.length - y.length;
    if (d === 0) {
      while (i < x.length && x[i] === y[i]) i++;
      if (i === x.length) return false;
      if (x.slice(i + 1).join("") === y.slice(i + 1).join("")) return true;
      return i + 1 < x.length && x[i] === y[i + 1] && x[i + 1] === y[i] && x.slice(i + 2).join("") === y.slice(i + 2).join("");
    }
    if (d === 1) {
      while (i < y.length && x[i] === y[i]) i++;
      return x.slice(i + 1).join("") === y.slice(i).join("");
    }
    return false;
  }
  function chunksFor(m, prefix) {
    var c = m.c, lo = 0, hi = c.length;
    if (!c.length) return [0, -1];
    while (lo < hi) { var mid = (lo + hi) >> 1; if (prefix < c[mid][0]) hi = mid; else lo = mid + 1; }
    lo = Math.max(0, lo - 1);
    hi = lo;
    while (hi + 1 < c.length && startsWith(c[hi + 1][0], prefix)) hi++;
    return [lo, hi];
  }
  function matchFactor(w, t, stem, n, prefix) {
    if (w === t) return F_EXACT;
    if (n >= 3 && lecternStem(w) === stem) return F_STEM;
    if (prefix && n >= 2 && startsWith(w, t)) return 0.5 + 0.3 * n / runes(w).length;
    if (n >= MIN_TYPO && oneEdit(w, t)) return F_TYPO;
    return 0;
  }
  function matches(m, t, prefix) {
    var stem = lecternStem(t), from = firstRunes(t, 3), r = chunksFor(m, from);
    if (r[1] - r[0] + 1 > MAX_TERM_CHUNKS) {
      from = commonPrefix(t, stem);
      if (runes(from).length < 3) from = firstRunes(t, 3);
      r = chunksFor(m, from);
      r[1] = Math.min(r[1], r[0] + MAX_TERM_CHUNKS - 1);
    }
    var n = runes(t).length, loads = [];
    if (n < 2) r[1] = Math.min(r[1], r[0]); // one letter: the word itself, no words it starts
    for (var i = r[0]; i <= r[1]; i++) loads.push(load(m.c[i][1]));
    return Promise.all(loads).then(function (chunks) {
      var out = [];
      chunks.forEach(function (c) {
        for (var k = 0; k < c.w.length; k++) {
          var w = c.w[k];
          if (!startsWith(w, from) || /[\x01\x02]/.test(w)) continue;
          var f = matchFactor(w, t, stem, n, prefix);
          if (f > 0) out.push({ word: w, factor: f, postings: c.p[k], i: out.length });
        }
      });
      out.sort(function (a, b) { return b.factor - a.factor || b.postings.length - a.postings.length || a.i - b.i; });
      return out.slice(0, MAX_EXPANSIONS);
    });
  }

  function idfOf(m, df) { return Math.log(1 + (m.n - df + 0.5) / (df + 0.5)); }
  // Phrases in titles (phrase.go): pairs of words that follow each other,
  // and the whole title, with their bonuses.
  function phraseTerms(terms) {
    var words = [], bonus = [];
    if (terms.length < 2) return { words: words, bonus: bonus };
    for (var i = 0; i + 1 < terms.length; i++) { words.push(terms[i] + "\x01" + terms[i + 1]); bonus.push(PAIR_BONUS); }
    words.push("\x02" + terms.join("\x01"));
    bonus.push(TITLE_BONUS);
    return { words: words, bonus: bonus };
  }
  // exact returns the postings of the index word w, [] when none.
  function exact(m, w) {
    var r = chunksFor(m, w);
    if (r[1] < r[0]) return Promise.resolve([]);
    return load(m.c[r[0]][1]).then(function (c) {
      var k = c.w.indexOf(w);
      return k < 0 ? [] : c.p[k];
    });
  }
  function uniqueWords(q) {
    var seen = {}, out = [];
    words(q).forEach(function (w) { if (!seen["$" + w[0]]) { seen["$" + w[0]] = true; out.push(w[0]); } });
    return out;
  }
  // search ranks the pages for query (once for the last query asked:
  // the dialog asks for the first results, then for more) and loads the
  // fragments of the best limit.
  var ranked = { q: null, p: null };
  function search(query, limit) {
    var terms = uniqueWords(query);
    if (!terms.length || limit <= 0) return Promise.resolve([]);
    if (ranked.q !== query) {
      var last = Array.from(query).pop() || "";
      var typing = /[\p{L}\p{N}\p{M}]/u.test(last);
      if (terms.length > MAX_QUERY_WORDS) { terms = terms.slice(0, MAX_QUERY_WORDS); typing = false; }
      ranked.q = query;
      // A query that a newer one replaced while its files loaded is not
      // ranked: the reader is still typing, and the page has work to do.
      ranked.p = meta().then(function (m) {
        if (ranked.q !== query) return null;
        var phrases = phraseTerms(terms);
        return Promise.all([
          Promise.all(terms.map(function (t, i) { return matches(m, t, typing && i === terms.length - 1); })),
          Promise.all(phrases.words.map(function (w) { return exact(m, w); }))
        ]).then(function (got) { return ranked.q === query ? rank(m, got[0], got[1], phrases.bonus) : null; });
      });
      ranked.p.catch(function () { if (ranked.q === query) ranked.q = null; });
    }
    return ranked.p.then(function (r) {
      // A newer query (the reader kept typing) makes these results moot:
      // their fragments are not loaded.
      if (ranked.q !== query || !r) return null;
      return Promise.all(topIDs(r, limit).map(function (id) {
        // Page id's fragment, in the file of FRAGMENT_GROUP pages
        // (index.go's FragmentGroup) that holds it.
        return load("f/" + Math.floor(id / FRAGMENT_GROUP) + ".js").then(function (g) {
          var f = g[id % FRAGMENT_GROUP];
          if (!f) {
            // A meta file older than the fragment file (a deployment
            // since): read both afresh next time.
            stale = true;
            throw new Error("search: no fragment of page " + id);
          }
          var res = { id: id, url: f.u, title: f.t, group: f.g || "", anchor: "", heading: "", excerpt: "", marks: [], score: r.scores[id], partial: r.partial };
          place(res, f, r.sets);
          return res;
        });
      }));
    });
  }
  // rank scores the pages that the query's words (all: each word's
  // matches) are in: BM25 with the field bonus, the best match of each
  // word, summed; those holding the most of the words, best first.
  function rank(m, all, phrases, bonus) {
    var n = m.dl.length, scores = new Float64Array(n), hits = new Uint8Array(n), best = new Float64Array(n);
    var seen = [], touched = [], sets = [], norm = m.norm;
    all.forEach(function (ms) {
      var set = new Set();
      touched.length = 0;
      ms.forEach(function (x) {
        set.add(x.word);
        var p = x.postings, idf = idfOf(m, p.length / 2 | 0), id = 0;
        for (var j = 0; j + 1 < p.length; j += 2) {
          id += p[j];
          var f = p[j + 1] >>> 2;
          var s = x.factor * idf * (BONUS[p[j + 1] & 3] + f * (K1 + 1) / (f + norm[id]));
          if (s > best[id]) {
            if (best[id] === 0) touched.push(id);
            best[id] = s;
          }
        }
      });
      touched.forEach(function (id) {
        if (hits[id] === 0) seen.push(id);
        scores[id] += best[id];
        hits[id]++;
        best[id] = 0;
      });
      sets.push(set);
    });
    phrases.forEach(function (p, k) {
      var idf = idfOf(m, p.length / 2 | 0), id = 0;
      for (var j = 0; j + 1 < p.length; j += 2) {
        id += p[j];
        if (hits[id] > 0) scores[id] += bonus[k] * idf;
      }
    });
    var most = 0, ids = [];
    seen.forEach(function (id) { most = Math.max(most, hits[id]); });
    seen.forEach(function (id) { if (hits[id] === most) ids.push(id); });
    return { ids: ids, sorted: 0, scores: scores, sets: sets, partial: most < all.length };
  }
  // topIDs returns the first limit ids of r in rank order: best score
  // first, then lowest id. Only the head of the list that some query
  // asked for is sorted (at least TOP_SORTED): a common word's thousands
  // of pages are not.
  function topIDs(r, limit) {
    var ids = r.ids, scores = r.scores;
    var order = function (a, b) { return scores[b] - scores[a] || a - b; };
    if (r.sorted < Math.min(limit, ids.length)) {
      var want = Math.max(limit, TOP_SORTED);
      if (ids.length <= 2 * want) {
        ids.sort(order);
        r.sorted = ids.length;
      } else {
        // The want-th best score: every id from there up is in the head.
        var sc = new Float64Array(ids.length);
        for (var i = 0; i < ids.length; i++) sc[i] = scores[ids[i]];
        sc.sort();
        var at = sc[ids.length - want], head = [], tail = [];
        ids.forEach(function (id) { (scores[id] >= at ? head : tail).push(id); });
        head.sort(order);
        r.ids = head.concat(tail);
        r.sorted = head.length;
      }
    }
    return r.ids.slice(0, limit);
  }

  function hitTerms(ws, sets) {
    var terms = sets.map(function () { return 0; });
    ws.forEach(function (w) { sets.forEach(function (set, i) { if (isIn(w, set)) terms[i]++; }); });
    return terms;
  }
  function place(r, f, sets) {
    var tt = hitTerms(words(f.t), sets), titleAll = tt.every(function (n) { return n > 0; });
    var best = -1, bestScore = 0;
    (f.s || []).forEach(function (s, i) {
      if (s.length !== 3) return;
      var h = hitTerms(words(s[1]), sets), x = hitTerms(words(s[2]), sets), score = 0, all = true;
      for (var k = 0; k < sets.length; k++) {
        if (h[k] > 0) score += 3;
        score += Math.min(x[k], 2);
        all = all && h[k] + x[k] > 0;
      }
      if (all) score++;
      if (score > bestScore) { best = i; bestScore = score; }
    });
    if (best < 0) {
      r.excerpt = f.d || "";
      if (!r.excerpt && f.s && f.s.length && f.s[0].length === 3) r.excerpt = cut(f.s[0][2], EXCERPT_WORDS);
      return;
    }
    var s = f.s[best];
    if (!titleAll) { r.anchor = s[0]; r.heading = s[1]; }
    excerpt(r, s[2], sets);
  }
  function cut(s, n) {
    var ws = words(s);
    return ws.length <= n ? s : s.slice(0, ws[n - 1][2]) + " …";
  }
  function excerpt(r, text, sets) {
    var ws = words(text), hit = ws.map(function (w) {
      var bits = 0;
      sets.forEach(function (set, k) { if (k < 30 && isIn(w, set)) bits |= 1 << k; });
      return bits;
    });
    var start = 0, bestTerms = -1, bestHits = -1;
    for (var i = 0; i < ws.length; i++) {
      if (!hit[i]) continue;
      var s = Math.max(0, i - 4), terms = 0, hits = 0;
      for (var j = s; j < ws.length && j < s + EXCERPT_WORDS; j++) if (hit[j]) { hits++; terms |= hit[j]; }
      var n = 0;
      for (var x = terms; x; x &= x - 1) n++;
      if (n > bestTerms || n === bestTerms && hits > bestHits) { start = s; bestTerms = n; bestHits = hits; }
    }
    if (!ws.length) return;
    var end = Math.min(ws.length, start + EXCERPT_WORDS);
    var from = start === 0 ? 0 : ws[start][1], to = ws[end - 1][2];
    var out = text.slice(from, to), shift = from;
    if (start > 0) { out = "… " + out; shift = from - 2; }
    if (end < ws.length) out += " …";
    r.excerpt = out;
    for (var k = start; k < end; k++) if (hit[k]) r.marks.push([ws[k][1] - shift, ws[k][2] - shift]);
  }
  // warm loads the meta file ahead (search opened, nothing typed yet)
  // and then, once, rehearses a query: a first query pasted at 10,000
  // pages spends 10 to 20 ms more ranking in V8's interpreter than once
  // its loops are compiled (bench/search.sh). The promise resolves after
  // the rehearsal.
  var rehearsed = null;
  function warm() {
    if (!rehearsed) {
      rehearsed = meta().then(function (m) {
        return new Promise(function (resolve) {
          setTimeout(function () {
            try { rehearse(m); } catch (e) { /* only a head start lost */ }
            resolve();
          }, 0);
        });
      });
      rehearsed.catch(function () { rehearsed = null; });
    }
    return rehearsed.catch(function () {});
  }
  // rehearse runs the ranking, the ordering and the excerpt on made-up
  // postings, one for every other page, touching nothing of the index
  // (ranked, files) that a real query reads.
  function rehearse(m) {
    var n = m.dl.length, p = [];
    for (var i = 0; i < n; i += 2) p.push(i ? 2 : 0, 4 + (i & 12));
    var r = rank(m, [[{ word: "lorem", factor: F_EXACT, postings: p, i: 0 }], [{ word: "ipsum", factor: F_STEM, postings: p, i: 0 }]], [p], [PAIR_BONUS]);
    topIDs(r, 1);
    topIDs(r, TOP_SORTED);
    place({ marks: [] }, { t: "Lorem", s: [["", "", "Ipsum dolor sit amet, lorem consectetur adipiscing elit."], ["a", "Lorem ipsum", "Dolor sit amet."]] }, r.sets);
    matchFactor("lorems", "lorem", lecternStem("lorem"), 5, true);
  }
  return { search: search, warm: warm, refresh: refresh };
}

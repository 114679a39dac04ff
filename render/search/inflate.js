// Lectern search: lecternInflate(bytes) returns the data of a gzip member
// (RFC 1952; its deflate stream, RFC 1951) as a Uint8Array, at once. The
// index's files are gzip in base64 (codec.go); the browser's own
// DecompressionStream inflates them too, but a task at a time, which on a
// busy page costs more than the inflating. It throws on anything that is
// not a whole, well-formed member with its checksum, and never reads or
// writes out of bounds.
function lecternInflate(src) {
  "use strict";
  var LBASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
  var LEXT = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
  var DBASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073,
    4097, 6145, 8193, 12289, 16385, 24577];
  var DEXT = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
  var ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
  var MAX_OUT = 256 << 20; // as decodeFile's bound
  function bad(why) { throw new Error("inflate: " + why); }

  var n = src.length;
  if (n < 18 || src[0] !== 0x1f || src[1] !== 0x8b || src[2] !== 8) bad("not gzip");
  var flg = src[3], pos = 10, end = n - 8;
  if (flg & 0xe0) bad("reserved flags");
  if (flg & 4) pos += 2 + (src[10] | src[11] << 8);
  if (flg & 8) { while (pos < end && src[pos]) pos++; pos++; }
  if (flg & 16) { while (pos < end && src[pos]) pos++; pos++; }
  if (flg & 2) pos += 2;
  if (pos > end) bad("truncated header");
  var size = (src[n - 4] | src[n - 3] << 8 | src[n - 2] << 16 | src[n - 1] << 24) >>> 0;
  if (size > MAX_OUT || size > n * 1032) bad("too large"); // deflate's best is 1032 to 1
  var out = new Uint8Array(size), op = 0;

  // Bits, least significant first, from src[pos:end].
  var buf = 0, cnt = 0;
  function bits(k) {
    while (cnt < k) {
      if (pos >= end) bad("truncated");
      buf |= src[pos++] << cnt;
      cnt += 8;
    }
    var v = buf & ((1 << k) - 1);
    buf >>>= k;
    cnt -= k;
    return v;
  }
  // A Huffman code as a table of 2^max entries, indexed by the next max
  // bits: symbol << 4 | length, 0 where no code is.
  function table(lengths, count) {
    var max = 0, i, len;
    for (i = 0; i < count; i++) max = Math.max(max, lengths[i]);
    var t = { max: max, t: new Int32Array(1 << max) };
    var num = new Int32Array(16), next = new Int32Array(16);
    for (i = 0; i < count; i++) num[lengths[i]]++;
    num[0] = 0;
    for (len = 1, i = 0; len <= 15; len++) {
      i = (i + num[len - 1]) << 1;
      next[len] = i;
      if (i + num[len] > 1 << len) bad("oversubscribed code");
    }
    for (var sym = 0; sym < count; sym++) {
      len = lengths[sym];
      if (!len) continue;
      var c = next[len]++, r = 0;
      for (i = 0; i < len; i++) { r = r << 1 | c & 1; c >>= 1; }
      for (i = r; i < t.t.length; i += 1 << len) t.t[i] = sym << 4 | len;
    }
    return t;
  }
  function decode(h) {
    while (cnt < h.max && pos < end) { buf |= src[pos++] << cnt; cnt += 8; }
    var e = h.t[buf & ((1 << h.max) - 1)], len = e & 15;
    if (!len || len > cnt) bad("bad code");
    buf >>>= len;
    cnt -= len;
    return e >> 4;
  }
  // The fixed codes' tables, made once for every call (as crc32's).
  function fixed() {
    if (!lecternInflate.fixed) {
      var l = new Uint8Array(288), d = new Uint8Array(30), i;
      for (i = 0; i < 288; i++) l[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
      for (i = 0; i < 30; i++) d[i] = 5;
      lecternInflate.fixed = [table(l, 288), table(d, 30)];
    }
    return lecternInflate.fixed;
  }
  function dynamic() {
    var nlit = bits(5) + 257, ndist = bits(5) + 1, ncl = bits(4) + 4, i;
    if (nlit > 286 || ndist > 30) bad("too many codes");
    var cl = new Uint8Array(19);
    for (i = 0; i < ncl; i++) cl[ORDER[i]] = bits(3);
    var clt = table(cl, 19), lens = new Uint8Array(nlit + ndist);
    for (i = 0; i < nlit + ndist;) {
      var sym = decode(clt), rep = 0, val = 0;
      if (sym < 16) { lens[i++] = sym; continue; }
      if (sym === 16) {
        if (!i) bad("repeat with no length");
        val = lens[i - 1];
        rep = 3 + bits(2);
      } else if (sym === 17) rep = 3 + bits(3);
      else rep = 11 + bits(7);
      if (i + rep > nlit + ndist) bad("lengths overflow");
      while (rep--) lens[i++] = val;
    }
    if (!lens[256]) bad("no end of block");
    return [table(lens.subarray(0, nlit), nlit), table(lens.subarray(nlit), ndist)];
  }

  for (var last = 0; !last;) {
    last = bits(1);
    var type = bits(2);
    if (type === 0) {
      pos -= cnt >> 3; // bytes read ahead go back; the partial one is dropped
      buf = cnt = 0;
      if (pos + 4 > end) bad("truncated");
      var len = src[pos] | src[pos + 1] << 8;
      if ((len ^ (src[pos + 2] | src[pos + 3] << 8)) !== 0xffff) bad("bad stored length");
      pos += 4;
      if (pos + len > end || op + len > size) bad("stored block overflows");
      out.set(src.subarray(pos, pos + len), op);
      pos += len;
      op += len;
      continue;
    }
    if (type === 3) bad("bad block type");
    var codes = type === 1 ? fixed() : dynamic(), lit = codes[0], dist = codes[1];
    for (;;) {
      var sym = decode(lit);
      if (sym < 256) {
        if (op >= size) bad("data overflows");
        out[op++] = sym;
        continue;
      }
      if (sym === 256) break;
      sym -= 257;
      if (sym >= 29) bad("bad length");
      var length = LBASE[sym] + bits(LEXT[sym]), d = decode(dist);
      if (d >= 30) bad("bad distance");
      var from = op - DBASE[d] - bits(DEXT[d]);
      if (from < 0) bad("distance too far");
      if (op + length > size) bad("data overflows");
      while (length--) out[op++] = out[from++];
    }
  }
  if (op !== size) bad("size mismatch");
  if (crc32(out) !== ((src[n - 8] | src[n - 7] << 8 | src[n - 6] << 16 | src[n - 5] << 24) >>> 0)) bad("checksum mismatch");
  return out;

  function crc32(b) {
    var t = lecternInflate.crc || (lecternInflate.crc = (function () {
      var t = new Int32Array(256);
      for (var i = 0; i < 256; i++) {
        var c = i;
        for (var k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ c >>> 1 : c >>> 1;
        t[i] = c;
      }
      return t;
    })());
    var c = -1;
    for (var i = 0; i < b.length; i++) c = t[(c ^ b[i]) & 0xff] ^ c >>> 8;
    return (c ^ -1) >>> 0;
  }
}

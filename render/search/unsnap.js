// Lectern search: lecternUnsnap(bytes) returns the data of a Snappy framed
// stream (github.com/google/snappy, framing_format.txt: chunks of at most
// 64 KB, each with the masked CRC-32C of its data) as a Uint8Array, at
// once. The index's files are such streams in base64 (codec.go): Snappy
// is LZ77 without entropy coding, so it is written in about half the time
// gzip takes, and read faster. It throws on anything that is not a whole,
// well-formed stream whose checksums match, and never reads or writes out
// of bounds.
function lecternUnsnap(src) {
  "use strict";
  var MAX_OUT = 256 << 20, MAX_CHUNK = 65536; // as decodeFile's bound; the format's
  var MAGIC = [0xff, 6, 0, 0, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]; // "sNaPpY"
  function bad(why) { throw new Error("unsnap: " + why); }

  var n = src.length, pos = 0, i;
  if (n < MAGIC.length) bad("not a snappy stream");
  for (i = 0; i < MAGIC.length; i++) if (src[i] !== MAGIC[i]) bad("not a snappy stream");
  var parts = [], total = 0;
  while (pos < n) {
    if (pos + 4 > n) bad("truncated");
    var type = src[pos], len = src[pos + 1] | src[pos + 2] << 8 | src[pos + 3] << 16;
    pos += 4;
    if (pos + len > n) bad("truncated");
    var body = src.subarray(pos, pos + len);
    pos += len;
    if (type === 0xff) { // the stream's identifier, again
      for (i = 0; i < MAGIC.length - 4; i++) if (body[i] !== MAGIC[i + 4] || len !== 6) bad("bad identifier");
      continue;
    }
    if (type >= 0x80) continue; // padding, and chunks to skip
    if (type > 1) bad("reserved chunk type");
    if (len < 4) bad("short chunk");
    var data = type === 0 ? block(body.subarray(4)) : body.subarray(4);
    if (data.length > MAX_CHUNK) bad("chunk too large");
    var want = (body[0] | body[1] << 8 | body[2] << 16 | body[3] << 24) >>> 0;
    if (masked(crc32c(data)) !== want) bad("checksum mismatch");
    total += data.length;
    if (total > MAX_OUT) bad("too large");
    parts.push(data);
  }
  if (parts.length === 1) return parts[0];
  var out = new Uint8Array(total), op = 0;
  for (i = 0; i < parts.length; i++) {
    out.set(parts[i], op);
    op += parts[i].length;
  }
  return out;

  // block decodes one Snappy block: its length as a varint, then literals
  // and copies of what came before.
  function block(b) {
    var p = 0, size = 0, c, shift = 0, end = b.length;
    do {
      if (p >= end || shift > 28) bad("bad length");
      c = b[p++];
      size += (c & 0x7f) * Math.pow(2, shift);
      shift += 7;
    } while (c & 0x80);
    if (size > MAX_CHUNK) bad("chunk too large");
    var out = new Uint8Array(size), op = 0, l, off, k, j;
    while (p < end) {
      var tag = b[p++], t = tag & 3;
      if (t === 0) {
        l = tag >>> 2;
        if (l >= 60) {
          k = l - 59;
          if (p + k > end) bad("truncated literal");
          for (l = 0, j = 0; j < k; j++) l += b[p + j] * Math.pow(2, 8 * j);
          p += k;
        }
        l += 1;
        if (l > end - p || l > size - op) bad("literal overflows");
        out.set(b.subarray(p, p + l), op);
        p += l;
        op += l;
        continue;
      }
      if (t === 1) {
        if (p >= end) bad("truncated copy");
        l = 4 + (tag >>> 2 & 7);
        off = (tag >>> 5) << 8 | b[p++];
      } else if (t === 2) {
        if (p + 2 > end) bad("truncated copy");
        l = 1 + (tag >>> 2);
        off = b[p] | b[p + 1] << 8;
        p += 2;
      } else {
        if (p + 4 > end) bad("truncated copy");
        l = 1 + (tag >>> 2);
        off = (b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24) >>> 0;
        p += 4;
      }
      if (off === 0 || off > op) bad("bad offset");
      if (l > size - op) bad("copy overflows");
      var from = op - off;
      if (off >= l && l > 16) {
        out.copyWithin(op, from, from + l);
        op += l;
      } else {
        while (l--) out[op++] = out[from++];
      }
    }
    if (op !== size) bad("size mismatch");
    return out;
  }

  function masked(c) { return ((c >>> 15 | c << 17) + 0xa282ead8) >>> 0; }

  // crc32c is CRC-32C (Castagnoli), which the format checks each chunk's
  // data with; its table is made once for every call.
  function crc32c(b) {
    var t = lecternUnsnap.crc || (lecternUnsnap.crc = (function () {
      var t = new Int32Array(256);
      for (var i = 0; i < 256; i++) {
        var c = i;
        for (var k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ c >>> 1 : c >>> 1;
        t[i] = c;
      }
      return t;
    })());
    var c = -1;
    for (var i = 0; i < b.length; i++) c = t[(c ^ b[i]) & 0xff] ^ c >>> 8;
    return (c ^ -1) >>> 0;
  }
}

package search

import _ "embed"

// QueryJS is the reader's side of the index: lecternSearchIndex(base), a
// script of its own with no dependencies but StemJS (lecternStem) and
// UnsnapJS (lecternUnsnap), which must come first. It gives the results
// of Index.Search.
//
//go:embed query.js
var QueryJS string

// UnsnapJS is lecternUnsnap(bytes): the data of a Snappy framed stream,
// which the index's files hold (codec.go), decompressed at once.
//
//go:embed unsnap.js
var UnsnapJS string

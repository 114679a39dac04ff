package search

import _ "embed"

// QueryJS is the reader's side of the index: lecternSearchIndex(base), a
// script of its own with no dependencies but StemJS (lecternStem) and
// InflateJS (lecternInflate), which must come first. It gives the results
// of Index.Search.
//
//go:embed query.js
var QueryJS string

// InflateJS is lecternInflate(bytes): the data of a gzip member, which
// the index's files hold (codec.go), inflated at once.
//
//go:embed inflate.js
var InflateJS string

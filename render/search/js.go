package search

import _ "embed"

// QueryJS is the reader's side of the index: lecternSearchIndex(base), a
// script of its own with no dependencies but StemJS (lecternStem), which
// must come first. It gives the results of Index.Search.
//
//go:embed query.js
var QueryJS string

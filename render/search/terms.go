package search

import (
	"encoding/binary"
	"errors"
)

// A page's words are kept encoded (Doc.Terms, and the rebuild cache's
// record of the page): its length in words, the number of words, then
// each word, sorted, as the length of the prefix it shares with the one
// before, the rest of it, and its weighted frequency, all numbers as
// uvarints.

// encodeTerms encodes a page's sorted words and length.
func encodeTerms(terms []Term, n int) []byte {
	size := 8
	for _, t := range terms {
		size += len(t.Word) + 4
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(terms)))
	prev := ""
	for _, t := range terms {
		k := 0
		for k < len(prev) && k < len(t.Word) && prev[k] == t.Word[k] {
			k++
		}
		b = binary.AppendUvarint(b, uint64(k))
		b = binary.AppendUvarint(b, uint64(len(t.Word)-k))
		b = append(b, t.Word[k:]...)
		b = binary.AppendUvarint(b, uint64(t.F))
		prev = t.Word
	}
	return b
}

var errTerms = errors.New("search: damaged terms")

// eachTerm calls fn with every word of encoded terms (the word's bytes are
// only valid during the call) and returns the page's length.
func eachTerm(b []byte, fn func(word []byte, f uint32)) (int, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return 0, errTerms
	}
	b = b[k:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > uint64(len(b)) {
		return 0, errTerms
	}
	b = b[k:]
	var word []byte
	for range count {
		shared, k1 := binary.Uvarint(b)
		if k1 <= 0 || shared > uint64(len(word)) {
			return 0, errTerms
		}
		b = b[k1:]
		rest, k2 := binary.Uvarint(b)
		if k2 <= 0 || rest > uint64(len(b)-k2) {
			return 0, errTerms
		}
		word = append(word[:shared], b[k2:k2+int(rest)]...)
		b = b[k2+int(rest):]
		f, k3 := binary.Uvarint(b)
		if k3 <= 0 || f > 1<<31 {
			return 0, errTerms
		}
		b = b[k3:]
		fn(word, uint32(f))
	}
	if n > 1<<40 {
		return 0, errTerms
	}
	return int(n), nil
}

// DocTerms decodes a Doc's words and length.
func DocTerms(encoded []byte) ([]Term, int, error) {
	var out []Term
	n, err := eachTerm(encoded, func(w []byte, f uint32) { out = append(out, Term{Word: string(w), F: f}) })
	return out, n, err
}

package search

import (
	"strings"
	"sync"
)

// count is the weighted frequency of a word of a page being read, and
// the best field it is in so far.
type count struct {
	f     uint32
	field uint8
}

// scratch is NewDoc's count of a page's words, kept from one page for the
// next (scratches): the words in the order found, and their counts, and
// the page's length in words, and buffers to lowercase a word in, to
// collect a section's text in, and to write the fragment in.
type scratch struct {
	set              wordSet
	counts           []count
	n                int
	lower, txt, frag []byte
}

// The table of a page's words starts this long, and is not kept longer
// after a large page.
const minSlots, maxSlots = 1 << 9, 1 << 13

var scratches = sync.Pool{New: func() any { return &scratch{set: wordSet{slots: make([]uint64, minSlots)}} }}

// release empties sc, not to keep the page's words alive in the pool,
// and puts it back.
func (sc *scratch) release() {
	sc.set.reset(minSlots, maxSlots)
	sc.counts, sc.n = sc.counts[:0], 0
	if cap(sc.frag) > 1<<20 {
		sc.txt, sc.frag = nil, nil // not kept after a large page
	}
	scratches.Put(sc)
}

// add counts the words of s (eachWord's, and their camel-case parts) in
// a field of weight weight.
func (sc *scratch) add(s string, weight uint32, field uint8) {
	eachRawWord(s, func(start, end int, ascii, upper bool) {
		raw := s[start:end]
		switch {
		case ascii && !upper:
			sc.word(raw, weight, field)
		case ascii: // capitals: camel case?
			sc.lowerWord(raw, weight, field)
			eachCamelPart(raw, func(part string) { sc.lowerWord(part, weight, field) })
		default: // (camel case is ASCII only)
			sc.word(strings.ToLower(raw), weight, field)
		}
		sc.n++
	})
}

// addASCII counts the words of ASCII text s, as add does, hashing each
// as it reads it.
func (sc *scratch) addASCII(s string, weight uint32, field uint8) {
	for i := 0; i < len(s); {
		if byteClasses[s[i]]&classWord == 0 {
			i++
			continue
		}
		start := i
		var h uint32
		var seen uint8
		i, h, seen = asciiWordEnd(s, i)
		sc.asciiWord(s[start:i], h, seen, weight, field)
	}
}

// asciiWordEnd reads the ASCII letters and digits of s from i on, and
// returns where they end, the hash of their lowercase (hashWord's) and
// their byte classes together (classUpper for a capital).
func asciiWordEnd(s string, i int) (end int, h uint32, seen uint8) {
	h = hashSeed
	for ; i < len(s); i++ {
		c := s[i]
		k := byteClasses[c]
		if k&classWord == 0 {
			break
		}
		seen |= k
		h = (h ^ uint32(c|0x20)) * hashPrime // (a letter or digit: c|0x20 is its lowercase)
	}
	return i, h, seen
}

// asciiWord counts ASCII word w, of hash h (of its lowercase), which
// has a capital if upper has classUpper, as add does.
func (sc *scratch) asciiWord(w string, h uint32, upper uint8, weight uint32, field uint8) {
	if len(w) > MaxWord {
		return
	}
	if upper&classUpper == 0 {
		sc.tally(sc.place(w, h), weight, field)
	} else {
		sc.lower = appendLowerASCII(sc.lower[:0], w)
		sc.lowered(h, weight, field)
		if hasUpper(w[1:]) { // camel case? (a capital first is one part)
			eachCamelPart(w, func(part string) { sc.lowerWord(part, weight, field) })
		}
	}
	sc.n++
}

// hasUpper reports whether ASCII s has a capital.
func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if byteClasses[s[i]]&classUpper != 0 {
			return true
		}
	}
	return false
}

// word counts word w, lowercase, in a field of weight weight.
func (sc *scratch) word(w string, weight uint32, field uint8) {
	sc.tally(sc.place(w, hashWord(w)), weight, field)
}

// lowerWord counts ASCII word w, lowercased in sc.lower: a new string
// only for a word new to the page.
func (sc *scratch) lowerWord(w string, weight uint32, field uint8) {
	sc.lower = appendLowerASCII(sc.lower[:0], w)
	sc.lowered(hashWord(sc.lower), weight, field)
}

// lowered counts the word in sc.lower, of hash h: a new string only for
// a word new to the page.
func (sc *scratch) lowered(h uint32, weight uint32, field uint8) {
	i, slot := sc.set.find(string(sc.lower), h)
	if i < 0 {
		i = sc.put(slot, string(sc.lower), h)
	}
	sc.tally(i, weight, field)
}

// place returns the place of word w, of hash h, added if new; -1 once
// the page has maxPageTerms words.
func (sc *scratch) place(w string, h uint32) int32 {
	i, slot := sc.set.find(w, h)
	if i < 0 {
		i = sc.put(slot, w, h)
	}
	return i
}

// put adds word w, of hash h, new to the page, in slot slot (find's),
// and returns its place; -1 once the page has maxPageTerms words.
func (sc *scratch) put(slot int, w string, h uint32) int32 {
	if len(sc.counts) >= maxPageTerms {
		return -1
	}
	sc.counts = append(sc.counts, count{})
	return sc.set.put(slot, w, h)
}

// tally adds weight to the count of place i, and keeps its best field.
func (sc *scratch) tally(i int32, weight uint32, field uint8) {
	if i < 0 {
		return
	}
	c := &sc.counts[i]
	c.f += weight
	c.field = max(c.field, field)
}

package search

// wordSet is a set of words, each with its place (in the order added)
// and its hash (hashWord): an open-addressing hash table of their hashes
// and places (slots: the hash in the high 32 bits, 1 + the place in the
// low ones, 0 for none; half full at most), so that a probe reads the
// word only when its hash is the one looked for. NewDoc counts a
// page's words in one, hashing each as it reads it, and Builder holds the
// index's vocabulary in another; each took about a third less time than
// a map of the words.
type wordSet struct {
	words  []string
	hashes []uint32
	slots  []uint64
}

// FNV-1a, 32 bits: the hash of a set's words, which NewDoc updates a byte
// at a time as it reads a word (addASCII).
const (
	hashSeed  = 2166136261
	hashPrime = 16777619
)

func hashWord[T string | []byte](w T) uint32 {
	h := uint32(hashSeed)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint32(w[i])) * hashPrime
	}
	return h
}

// find returns the place of word w, of hash h; or -1 and the slot for it
// (put's).
func (ws *wordSet) find(w string, h uint32) (int32, int) {
	mask := len(ws.slots) - 1
	for j := int(h) & mask; ; j = (j + 1) & mask {
		s := ws.slots[j]
		if s == 0 {
			return -1, j
		}
		if uint32(s>>32) == h {
			if i := int32(uint32(s)) - 1; ws.words[i] == w {
				return i, j
			}
		}
	}
}

// put adds word w, of hash h, not in the set, in slot slot (find's), and
// returns its place.
func (ws *wordSet) put(slot int, w string, h uint32) int32 {
	ws.words = append(ws.words, w)
	ws.hashes = append(ws.hashes, h)
	ws.slots[slot] = slotOf(h, len(ws.words)-1)
	if 2*len(ws.words) > len(ws.slots) {
		ws.grow(2 * len(ws.slots))
	}
	return int32(len(ws.words) - 1)
}

// slotOf is the slot of the word of hash h at place i.
func slotOf(h uint32, i int) uint64 { return uint64(h)<<32 | uint64(i+1) }

// grow makes the table n slots long (a power of two).
func (ws *wordSet) grow(n int) {
	ws.slots = make([]uint64, n)
	mask := n - 1
	for i, h := range ws.hashes {
		j := int(h) & mask
		for ws.slots[j] != 0 {
			j = (j + 1) & mask
		}
		ws.slots[j] = slotOf(h, i)
	}
}

// reset empties the set, keeping a table up to maxSlots long.
func (ws *wordSet) reset(minSlots, maxSlots int) {
	clear(ws.words) // not to keep the words alive
	ws.words, ws.hashes = ws.words[:0], ws.hashes[:0]
	if len(ws.slots) > maxSlots || len(ws.slots) < minSlots {
		ws.slots = make([]uint64, minSlots)
	} else {
		clear(ws.slots)
	}
}

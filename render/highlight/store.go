package highlight

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The build cache also keeps highlighted code, by content: a page rendered
// again whose code blocks did not change does not lex them. Lexing a
// language's first block in a process first compiles its lexer (chroma's
// regular expressions, milliseconds per language), which is most of the
// cost of rendering one page again in a new process (lectern build).
//
// The HTML of the blocks (as Write writes it between <code> and
// </code>) is appended to a file of the cache folder (Index.File,
// highlight-*.bin); the manifest holds the index (Index.Index): per
// block, the hash of its highlightKey (language, highlighted lines and
// code), where its HTML is in the file and its CRC-32, sorted by hash. The
// file is only appended to, and the manifest that indexes new blocks is
// written after them. A build that renders every page writes a new file
// with the blocks it used, leaving out those no page uses any more.
//
// The Markdown of a page is parsed per flow (components.Renderer.markdown), which
// hands its build's store to each fenced code block of the tree it walks;
// Write asks and tells that store (stored, record), nil in a
// build without a cache.

// Index is the manifest's record of the highlighted code.
type Index struct {
	File  string // in the cache folder; "" when none
	Index []byte // codeRecordSize-byte records, sorted
}

// A record of Index.Index: the hash (codeHashSize bytes), then the
// offset (8 bytes), length and CRC-32 (4 bytes each) of the HTML in the
// file, little-endian.
const (
	codeHashSize   = 16
	codeRecordSize = codeHashSize + 8 + 4 + 4
	// maxCodeFile is the size beyond which the file is started again.
	maxCodeFile = 256 << 20
)

type codeHash [codeHashSize]byte

func hashCode(key string) codeHash {
	s := sha256.Sum256([]byte(key))
	return codeHash(s[:codeHashSize])
}

// Store is the highlighted code of one build's cache.
type Store struct {
	dir  string
	prev Index // of the previous manifest, read-only

	mu     sync.Mutex
	f      *os.File // prev.File, opened on the first lookup
	failed bool     // prev.File could not be opened
	added  map[codeHash]string
	used   map[codeHash]bool
}

func NewStore(dir string, prev Index) *Store {
	if len(prev.Index)%codeRecordSize != 0 || prev.File == "" || prev.File != filepath.Base(prev.File) {
		prev = Index{}
	}
	return &Store{dir: dir, prev: prev, added: map[codeHash]string{}, used: map[codeHash]bool{}}
}

// stored returns the highlighted HTML of the block with key highlightKey,
// if cs (nil for none) has it.
func (cs *Store) stored(key string) (string, bool) {
	if cs == nil {
		return "", false
	}
	return cs.lookup(hashCode(key))
}

// record gives cs (nil for none) a block just highlighted.
func (cs *Store) record(key, html string) {
	if cs == nil {
		return
	}
	h := hashCode(key)
	cs.mu.Lock()
	cs.added[h] = html
	cs.used[h] = true
	cs.mu.Unlock()
}

// find returns the record of h in index.
func findCode(index []byte, h codeHash) ([]byte, bool) {
	n := len(index) / codeRecordSize
	i := sort.Search(n, func(i int) bool {
		return bytes.Compare(index[i*codeRecordSize:i*codeRecordSize+codeHashSize], h[:]) >= 0
	})
	if i == n {
		return nil, false
	}
	rec := index[i*codeRecordSize : (i+1)*codeRecordSize]
	return rec, bytes.Equal(rec[:codeHashSize], h[:])
}

func (cs *Store) lookup(h codeHash) (string, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if html, ok := cs.added[h]; ok {
		cs.used[h] = true
		return html, true
	}
	rec, ok := findCode(cs.prev.Index, h)
	if !ok {
		return "", false
	}
	html, ok := cs.read(rec)
	if ok {
		cs.used[h] = true
	}
	return html, ok
}

// read returns the HTML that rec locates in the previous file, checked
// against its CRC-32. Called with cs.mu held.
func (cs *Store) read(rec []byte) (string, bool) {
	if cs.f == nil && !cs.failed {
		f, err := os.Open(filepath.Join(cs.dir, cs.prev.File))
		if err != nil {
			cs.failed = true
			return "", false
		}
		cs.f = f
	}
	if cs.f == nil {
		return "", false
	}
	off := binary.LittleEndian.Uint64(rec[codeHashSize:])
	size := binary.LittleEndian.Uint32(rec[codeHashSize+8:])
	if off > maxCodeFile || size > maxCachedCode*8 {
		return "", false
	}
	buf := make([]byte, size)
	if _, err := cs.f.ReadAt(buf, int64(off)); err != nil {
		return "", false
	}
	if crc32.ChecksumIEEE(buf) != binary.LittleEndian.Uint32(rec[codeHashSize+12:]) {
		return "", false
	}
	return string(buf), true
}

// Save writes the blocks highlighted in this build to the cache folder and
// returns the index of the next manifest. With all (every page was
// rendered), the blocks no page used are left out: the blocks used are
// written to a new file, as they are when the file is missing or too big.
// Errors leave the code out of the cache (the next build lexes again) and
// are not returned: the output does not depend on it.
func (cs *Store) Save(all bool) Index {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.f != nil {
		defer cs.f.Close()
	}
	if len(cs.added) == 0 && (!all || len(cs.used) == len(cs.prev.Index)/codeRecordSize) {
		return cs.prev // nothing new, nothing to leave out
	}
	fresh := all || cs.prev.File == ""
	if !fresh {
		fi, err := os.Stat(filepath.Join(cs.dir, cs.prev.File))
		fresh = err != nil || fi.Size() > maxCodeFile
	}
	type block struct {
		h    codeHash
		html string
	}
	var blocks []block // to write
	keep, file := cs.prev.Index, cs.prev.File
	flag := os.O_WRONLY | os.O_APPEND
	if fresh {
		keep, file = nil, "highlight-"+strconv.FormatUint(rand.Uint64(), 36)+".bin"
		flag = os.O_WRONLY | os.O_CREATE | os.O_EXCL
		for h := range cs.used {
			html, ok := cs.added[h]
			if !ok {
				rec, found := findCode(cs.prev.Index, h)
				if !found {
					continue
				}
				if html, ok = cs.read(rec); !ok {
					continue
				}
			}
			blocks = append(blocks, block{h, html})
		}
	} else {
		for h, html := range cs.added {
			if _, found := findCode(keep, h); !found {
				blocks = append(blocks, block{h, html})
			}
		}
	}
	if err := os.MkdirAll(cs.dir, 0o755); err != nil {
		return Index{}
	}
	f, err := os.OpenFile(filepath.Join(cs.dir, file), flag, 0o644)
	if err != nil {
		return Index{}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return Index{}
	}
	off := uint64(fi.Size())
	var data []byte
	records := make([]byte, 0, len(blocks)*codeRecordSize)
	for _, b := range blocks {
		records = append(records, b.h[:]...)
		records = binary.LittleEndian.AppendUint64(records, off+uint64(len(data)))
		records = binary.LittleEndian.AppendUint32(records, uint32(len(b.html)))
		records = binary.LittleEndian.AppendUint32(records, crc32.ChecksumIEEE([]byte(b.html)))
		data = append(data, b.html...)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Index{}
	}
	return Index{File: file, Index: mergeCodeIndex(keep, records)}
}

// mergeCodeIndex returns the records of a (sorted) and b (any order),
// sorted by hash.
func mergeCodeIndex(a, b []byte) []byte {
	n := len(b) / codeRecordSize
	recs := make([][]byte, n)
	for i := range recs {
		recs[i] = b[i*codeRecordSize : (i+1)*codeRecordSize]
	}
	sort.Slice(recs, func(i, j int) bool { return bytes.Compare(recs[i][:codeHashSize], recs[j][:codeHashSize]) < 0 })
	out := make([]byte, 0, len(a)+len(b))
	for len(a) > 0 || len(recs) > 0 {
		if len(recs) == 0 || len(a) > 0 && bytes.Compare(a[:codeHashSize], recs[0][:codeHashSize]) < 0 {
			out = append(out, a[:codeRecordSize]...)
			a = a[codeRecordSize:]
		} else {
			out = append(out, recs[0]...)
			recs = recs[1:]
		}
	}
	return out
}

// RemoveOtherFiles removes the highlighted-code files of dir but keep
// (files of earlier manifests, or of builds that did not finish).
func RemoveOtherFiles(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name != keep && strings.HasPrefix(name, "highlight-") && strings.HasSuffix(name, ".bin") {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

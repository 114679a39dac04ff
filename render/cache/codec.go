package cache

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/output"
)

// The manifest is a compact binary file: the format string, then the
// fields of Manifest in order; strings and byte slices are a length
// (uvarint) and the bytes, integers varints, maps a count and their
// entries. A manifest that does not decode is ignored.
//
// Updating is the byte right after the format string, at
// manifestStateOffset, so that a build marks the manifest by writing that
// byte in place (MarkUpdating) rather than the whole file.

// The values of the state byte.
const (
	manifestComplete = 0
	manifestUpdating = 1
)

// manifestStateOffset is where the state byte is in the file.
var manifestStateOffset = len(binary.AppendUvarint(nil, uint64(len(format)))) + len(format)

type encBuf struct{ b []byte }

func (e *encBuf) uint(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *encBuf) int(v int64)    { e.b = binary.AppendVarint(e.b, v) }
func (e *encBuf) str(v string)   { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encBuf) bytes(v []byte) { e.uint(uint64(len(v))); e.b = append(e.b, v...) }
func (e *encBuf) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encBuf) strs(v []string) {
	e.uint(uint64(len(v)))
	for _, s := range v {
		e.str(s)
	}
}

func (e *encBuf) warnings(v []diag.Warning) {
	e.uint(uint64(len(v)))
	for _, w := range v {
		e.str(w.File)
		e.int(int64(w.Line))
		e.str(w.Message)
	}
}

func (e *encBuf) stamp(st Stamp) {
	e.bool(st.OK)
	e.int(st.Size)
	e.int(st.ModTime)
	e.int(st.CTime)
	e.uint(st.Dev)
	e.uint(st.Ino)
}

func (e *encBuf) file(f output.FileInfo) {
	e.int(f.Size)
	e.int(f.ModTime)
}

func encodeManifest(m *Manifest) []byte {
	size := 64
	for k, p := range m.Pages {
		size += len(k) + len(p.Terms) + 128 + 48*len(p.Links)
	}
	if m.encodedSources != nil {
		size += len(m.encodedSources)
	} else {
		size += len(m.Sources) * 160
	}
	size += len(m.Outputs) * 32
	e := &encBuf{b: make([]byte, 0, size)}
	e.str(format)
	if m.Updating {
		e.b = append(e.b, manifestUpdating)
	} else {
		e.b = append(e.b, manifestComplete)
	}
	e.uint(m.Dir.Dev)
	e.uint(m.Dir.Ino)
	e.str(m.Tool)
	e.str(m.Key)
	e.int(m.Start)
	e.uint(uint64(len(m.Pages)))
	for _, k := range orderedKeys(m.Pages, m.pageOrder) {
		p := m.Pages[k]
		e.str(k)
		e.str(p.Src)
		e.uint(uint64(len(p.Deps)))
		for _, d := range slices.Sorted(maps.Keys(p.Deps)) {
			e.str(d)
			e.str(p.Deps[d])
		}
		e.str(p.Context)
		e.file(p.Out)
		e.file(p.MD)
		e.int(p.FullOff)
		e.int(p.FullLen)
		e.bytes(p.Terms)
		e.uint(uint64(p.SearchID))
		e.file(p.Frag)
		e.warnings(p.Warnings)
		e.bool(p.Mermaid)
		e.bool(p.Playground)
		e.strs(p.Links)
		e.str(p.LinkSum)
	}
	if m.encodedSources != nil {
		e.b = append(e.b, m.encodedSources...)
	} else {
		encodeSources(e, m)
	}
	e.uint(uint64(len(m.Search)))
	for _, f := range m.Search {
		e.str(f.Name)
		e.file(f.Info)
	}
	e.file(m.Home)
	e.file(m.HomeMD)
	e.str(m.HomePage)
	e.file(m.LLMsFull)
	e.str(m.LLMsKey)
	e.uint(uint64(len(m.Assets)))
	for _, k := range slices.Sorted(maps.Keys(m.Assets)) {
		a := m.Assets[k]
		e.str(k)
		e.stamp(a.Stamp)
		e.file(a.Out)
	}
	e.strs(m.Outputs)
	e.str(m.Code.File)
	e.bytes(m.Code.Index)
	e.str(m.PageFiles)
	e.str(format) // end mark
	return e.b
}

// encodeSources encodes the Sources of m.
func encodeSources(e *encBuf, m *Manifest) {
	e.uint(uint64(len(m.Sources)))
	for _, k := range orderedKeys(m.Sources, m.fileOrder) {
		s := m.Sources[k]
		e.str(k)
		e.stamp(s.Stamp)
		e.str(s.Sum)
		e.bool(s.Load != nil)
		if l := s.Load; l != nil {
			for _, v := range []string{l.Nav, l.Title, l.Description, l.SidebarTitle, l.Icon, l.OpenAPI, l.Mode, l.PageTitle, l.Tag, l.URL, l.API} {
				e.str(v)
			}
			for _, b := range []bool{l.Hidden, l.NoIndex, l.Deprecated, l.NotSearchable, l.NoPager, l.HideAPIMarker} {
				e.bool(b)
			}
			e.strs(l.Keywords)
			e.strs(l.FileRefs)
			e.int(int64(l.BodyLine))
			e.warnings(l.Warnings)
		}
	}
}

// orderedKeys returns the keys of m: those in order (which holds no key
// twice) first, in that order, then the others, sorted.
func orderedKeys[V any](m map[string]V, order []string) []string {
	if order == nil {
		return slices.Sorted(maps.Keys(m))
	}
	keys := make([]string, 0, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == len(m) {
		return keys
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		seen[k] = true
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

type decBuf struct {
	b   []byte
	bad bool
	// s, when set, is the whole input as a string (of size bytes): the
	// strings read are substrings of it, which saves an allocation each.
	s    string
	size int
}

func (d *decBuf) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decBuf) int() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must fit in what is left.
func (d *decBuf) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) || n > math.MaxInt32 {
		d.bad, d.b = true, nil
		return 0
	}
	return int(n)
}

// bytes returns a slice of the data read (not a copy).
func (d *decBuf) bytes() []byte {
	n := d.count()
	if d.bad {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decBuf) str() string {
	if d.s == "" {
		return string(d.bytes())
	}
	n := d.count()
	if d.bad {
		return ""
	}
	off := d.size - len(d.b)
	d.b = d.b[n:]
	return d.s[off : off+n]
}

func (d *decBuf) bool() bool {
	if len(d.b) == 0 {
		d.bad = true
		return false
	}
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

func (d *decBuf) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	v := make([]string, n)
	for i := range v {
		v[i] = d.str()
	}
	return v
}

func (d *decBuf) warnings() []diag.Warning {
	n := d.count()
	if n == 0 {
		return nil
	}
	v := make([]diag.Warning, n)
	for i := range v {
		v[i] = diag.Warning{File: d.str(), Line: int(d.int()), Message: d.str()}
	}
	return v
}

func (d *decBuf) stamp() Stamp {
	return Stamp{OK: d.bool(), Size: d.int(), ModTime: d.int(), CTime: d.int(), Dev: d.uint(), Ino: d.uint()}
}

func (d *decBuf) file() output.FileInfo { return output.FileInfo{Size: d.int(), ModTime: d.int()} }

// head decodes the fields before the records: format, state,
// folder, renderer, key and start.
func (d *decBuf) head() (*Manifest, bool) {
	if d.str() != format || d.bad || len(d.b) == 0 {
		return nil, false
	}
	state := d.b[0]
	d.b = d.b[1:]
	if state != manifestComplete && state != manifestUpdating {
		return nil, false
	}
	m := &Manifest{Updating: state == manifestUpdating}
	m.Dir = fileID{Dev: d.uint(), Ino: d.uint()}
	m.Tool, m.Key, m.Start = d.str(), d.str(), d.int()
	return m, !d.bad
}

// decodeManifestHead decodes the head of a manifest (the first bytes of
// the file): Updating, Dir, Tool, Key and Start.
func decodeManifestHead(data []byte) (*Manifest, bool) {
	return (&decBuf{b: data}).head()
}

// decodeManifest decodes data (which the manifest's byte slices keep
// referring to); ok is false when it is not a manifest of this format.
func decodeManifest(data []byte) (*Manifest, bool) {
	d := &decBuf{b: data, s: string(data), size: len(data)}
	m, ok := d.head()
	if !ok {
		return nil, false
	}
	// The records of a kind are allocated together.
	n := d.count()
	m.Pages = make(map[string]*Page, n)
	pages := make([]Page, n)
	for i := range n {
		if d.bad {
			return nil, false
		}
		k := d.str()
		p := &pages[i]
		p.Src = d.str()
		if nd := d.count(); nd > 0 {
			p.Deps = make(map[string]string, nd)
			for range nd {
				dep := d.str()
				p.Deps[dep] = d.str()
			}
		}
		p.Context = d.str()
		p.Out = d.file()
		p.MD = d.file()
		p.FullOff, p.FullLen = d.int(), d.int()
		p.Terms = d.bytes()
		p.SearchID = int(d.uint())
		p.Frag = d.file()
		p.Warnings = d.warnings()
		p.Mermaid = d.bool()
		p.Playground = d.bool()
		p.Links = d.strs()
		p.LinkSum = d.str()
		m.Pages[k] = p
	}
	n = d.count()
	m.Sources = make(map[string]*Source, n)
	sources := make([]Source, n)
	loads := make([]PageLoad, 0, n)
	for i := range n {
		if d.bad {
			return nil, false
		}
		k := d.str()
		s := &sources[i]
		s.Stamp, s.Sum = d.stamp(), d.str()
		if d.bool() {
			loads = append(loads, PageLoad{Nav: d.str(), Title: d.str(), Description: d.str(), SidebarTitle: d.str(),
				Icon: d.str(), OpenAPI: d.str(), Mode: d.str(), PageTitle: d.str(), Tag: d.str(), URL: d.str(), API: d.str()})
			l := &loads[len(loads)-1]
			for _, b := range []*bool{&l.Hidden, &l.NoIndex, &l.Deprecated, &l.NotSearchable, &l.NoPager, &l.HideAPIMarker} {
				*b = d.bool()
			}
			l.Keywords = d.strs()
			l.FileRefs = d.strs()
			l.BodyLine = int(d.int())
			l.Warnings = d.warnings()
			s.Load = l
		}
		m.Sources[k] = s
	}
	if n := d.count(); n > 0 {
		m.Search = make([]SearchFile, n)
		for i := range m.Search {
			m.Search[i] = SearchFile{Name: d.str(), Info: d.file()}
		}
	}
	m.Home = d.file()
	m.HomeMD = d.file()
	m.HomePage = d.str()
	m.LLMsFull = d.file()
	m.LLMsKey = d.str()
	n = d.count()
	m.Assets = make(map[string]*Asset, n)
	for range n {
		if d.bad {
			return nil, false
		}
		k := d.str()
		m.Assets[k] = &Asset{Stamp: d.stamp(), Out: d.file()}
	}
	m.Outputs = d.strs()
	m.Code = highlight.Index{File: d.str(), Index: d.bytes()}
	m.PageFiles = d.str()
	if d.str() != format || d.bad || len(d.b) != 0 {
		return nil, false
	}
	return m, true
}

// EncodeSourcesNow encodes the Sources of m ahead of encodeManifest, which
// then uses the result: once the pages are rendered, no source is read any
// more, and the encoding can run while the site files are written.
func (m *Manifest) EncodeSourcesNow() {
	e := &encBuf{b: make([]byte, 0, 64+len(m.Sources)*160)}
	encodeSources(e, m)
	m.encodedSources = e.b
}

// SetOrder sets the order in which to encode Pages and Sources.
func (m *Manifest) SetOrder(pages, files []string) {
	m.pageOrder, m.fileOrder = pages, files
}

// Write writes m as the manifest of the cache folder dir,
// replacing the previous one whole.
func Write(dir string, m *Manifest) error {
	data := encodeManifest(m)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ManifestName+".tmp-*")
	if err != nil {
		return fmt.Errorf("render: write cache: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, ManifestName))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("render: write cache: %w", err)
	}
	return nil
}

package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/highlight"
	"lectern.dev/lectern/render/output"
	"lectern.dev/lectern/render/page"
)

// format changes whenever the manifest's format or meaning does.
const format = "lectern-render-cache/10"

const ManifestName = "manifest.bin"

// StampSlack is how long before the start of the build that recorded it a
// stamp's times must be for the stamp to be trusted: many times the tick
// of the coarse clock that Linux file systems take their times from. On
// file systems whose times are whole seconds (FAT keeps modification
// times to 2 s), it is coarseStampSlack.
const (
	StampSlack       = 100 * time.Millisecond
	coarseStampSlack = 3 * time.Second
)

// Racy reports whether a stamp is too close to the start of the build that
// recorded it to be trusted (see "Stamps" above).
func (st Stamp) Racy(start int64) bool {
	slack := int64(StampSlack)
	if st.CTime%int64(time.Second) == 0 || st.ModTime%int64(time.Second) == 0 {
		slack = int64(coarseStampSlack)
	}
	return st.CTime >= start-slack || st.ModTime >= start-slack
}

// Manifest is what the cache folder holds.
type Manifest struct {
	// Updating says that a build was updating the output in place when
	// the manifest was written, and did not finish (see "Updating the
	// output in place"): only Sources may be used.
	Updating bool
	// Dir is the output folder the build wrote into.
	Dir fileID
	// Tool identifies the format and the renderer binary: the source
	// records are used only when it matches; Key covers all of the
	// build's inputs: the page records are used only when it matches.
	Tool, Key string
	Start     int64              // Unix nanoseconds when the build began
	Pages     map[string]*Page   // by navigation path
	Sources   map[string]*Source // by source file
	Assets    map[string]*Asset  // copied non-page files
	// Search are the search index's meta file and chunks as written
	// (render/search), kept as they are when no page's words changed.
	Search []SearchFile
	// Home is index.html as written when it is a copy of the first page
	// (there is no "index" page), HomeMD its index.md, and HomePage that
	// page.
	Home, HomeMD output.FileInfo
	HomePage     string
	// LLMsFull is llms-full.txt as written, and LLMsKey the hash of the
	// pages it holds and their URLs (render: llms.go), kept as it is when
	// no page was rendered again and the key is the same.
	LLMsFull output.FileInfo
	LLMsKey  string
	// Outputs are the files the build put in Dir other than the pages'
	// (which are the keys of Pages + ".html" and + ".md"), sorted.
	Outputs []string
	// Code is the highlighted code kept (highlight.Store).
	Code highlight.Index
	// PageFiles is the hash of the names of the source's page files, which
	// the key does not cover: while they are the same, so is what each
	// page's links find (Page.LinkSum).
	PageFiles string

	// pageOrder and fileOrder, when set, are the order in which to
	// encode Pages and Sources (navigation order, the source files in
	// the order of fs.WalkDir),
	// which saves sorting thousands of keys; keys not in them follow,
	// sorted. They are not encoded.
	pageOrder, fileOrder []string
	// encodedSources, when set, is Sources encoded (encodeSources), done
	// ahead by buildCache.encodeSourcesAhead. It is not encoded.
	encodedSources []byte
}

// fileID identifies a file or folder: device and inode numbers.
type fileID struct{ Dev, Ino uint64 }

// Page is the record of one page.
type Page struct {
	Src     string            // hash of the source file
	Deps    map[string]string // imported files → hash
	Context string            // hash of the sidebar and neighbours
	// Links are what the page looked up in the site (links.Lookups: its
	// links, the snippets and modules it uses), and LinkSum the hash of
	// what they found (links.Resolver.LookupSum): the cache's key does not
	// cover the site's pages, which may be added or removed.
	Links   []string
	LinkSum string
	// Out is the page's HTML as written, MD its Markdown (PAGE.md).
	Out, MD output.FileInfo
	// Terms are the page's words for the search index (search.Doc.Terms),
	// nil when it is not in the index. SearchID is the page's id in the
	// index plus one (0: not in it), which a kept page keeps, and Frag
	// its fragment file as written.
	Terms    []byte
	SearchID int
	Frag     output.FileInfo
	Warnings []diag.Warning
	// FullOff and FullLen are where the page's entry is in llms-full.txt
	// (FullLen 0: not in it), which a kept page's entry is taken from.
	FullOff, FullLen int64
	// Mermaid says the page has a diagram (the build then writes the
	// mermaid library). Anything else a page's render records on the site
	// must be kept here too, so that a reused page records it again.
	Mermaid bool
	// Playground says the page has an API playground (the build then
	// writes playground.js).
	Playground bool
	// OutChecked says the Output's files were looked up (checkOutputs),
	// and OutOK that they are Out and MD. They are not encoded.
	OutChecked, OutOK bool
}

// SearchFile is a file of the search index as written.
type SearchFile struct {
	Name string
	Info output.FileInfo
}

// Source is the record of one source file that was read.
type Source struct {
	Stamp Stamp
	Sum   string
	Load  *PageLoad // for a page: what page.Load produced
}

// PageLoad is a loaded page without its body: page.Load's result for the
// navigation path Nav and a source of the recorded hash.
type PageLoad struct {
	Nav                                                   string
	Title, Description, SidebarTitle, Icon, OpenAPI, Mode string
	Tag, URL, API                                         string
	Hidden, NoIndex, Deprecated, NotSearchable, NoPager   bool
	HideAPIMarker                                         bool
	Keywords, FileRefs                                    []string
	PageTitle                                             string
	BodyLine                                              int
	Warnings                                              []diag.Warning
}

// Asset is a copied non-page file.
type Asset struct {
	Stamp Stamp // of the source
	Out   output.FileInfo
}

// Stamp identifies a version of a source file without reading it.
// OK is false when the file system does not report a change time.
type Stamp struct {
	OK                   bool
	Size, ModTime, CTime int64
	Dev, Ino             uint64
}

func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:16])
}

// toolKey identifies the cache format and the renderer binary.
func toolKey() string {
	key := format
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			key += " " + strconv.Quote(exe) + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
		}
	}
	return key
}

// NewPageLoad is the manifest record of page p, loaded with warnings.
func NewPageLoad(p *page.Page, warns []diag.Warning) *PageLoad {
	return &PageLoad{Nav: p.Path, Title: p.Front.Title, Description: p.Front.Description, SidebarTitle: p.Front.SidebarTitle,
		Icon: p.Front.Icon, OpenAPI: p.Front.OpenAPI, Mode: p.Front.Mode, Hidden: p.Front.Hidden, NoIndex: p.Front.NoIndex,
		Tag: p.Front.Tag, URL: p.Front.URL, Deprecated: p.Front.Deprecated, NotSearchable: p.Front.NotSearchable,
		NoPager: p.Front.HideFooterPagination, API: p.Front.API, HideAPIMarker: p.Front.HideAPIMarker, Keywords: p.Front.Keywords, FileRefs: p.FileRefs, PageTitle: p.Title, BodyLine: p.BodyLine, Warnings: warns}
}

// Page returns the page l describes, without its body and raw front
// matter (site.ensureBody reads them when the page is rendered).
func (l *PageLoad) Page(navPath, file string) *page.Page {
	p := &page.Page{Path: navPath, File: file, Title: l.PageTitle, BodyLine: l.BodyLine, MDX: strings.HasSuffix(file, ".mdx"), FileRefs: l.FileRefs}
	p.Front = page.FrontMatter{Title: l.Title, Description: l.Description, SidebarTitle: l.SidebarTitle, Icon: l.Icon,
		OpenAPI: l.OpenAPI, Mode: l.Mode, Hidden: l.Hidden, NoIndex: l.NoIndex, Keywords: l.Keywords,
		Tag: l.Tag, URL: l.URL, Deprecated: l.Deprecated, NotSearchable: l.NotSearchable, HideFooterPagination: l.NoPager,
		API: l.API, HideAPIMarker: l.HideAPIMarker}
	return p
}

package precompress

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Where a live deployment's compressed copies and manifest live in the
// blob store, beside its site (sites/{project}/{deployment}/site/NAME):
// sites/{project}/{deployment}/br/NAME and .../gzip/NAME, and
// .../files.json. A parallel prefix rather than NAME.br keeps every name
// of the site its own: a site's own "x.html.br" is never taken for a copy,
// nor a copy served as a file of the site.
//
// These keys belong with blobstore.SiteKey; they are here until the
// blobstore package takes them.

// VariantKey returns the key of the enc copy of site file name of the
// deployment whose blobs live under sitePrefix (blobstore.SitePrefix).
// Only compressible names have copies, and none of them ends in ".attrs",
// the name the file bucket reserves (blobstore.SiteKey).
func VariantKey(sitePrefix string, enc int, name string) string {
	return sitePrefix + Names[enc] + "/" + name
}

// ManifestKey returns the key of the manifest of the deployment whose
// blobs live under sitePrefix.
func ManifestKey(sitePrefix string) string { return sitePrefix + "files.json" }

// Versions of the manifest's format. In version 1 (ManifestVersion) each
// deployment holds its own copy of every file (blobstore.SiteKey,
// VariantKey); in version 2 (ManifestVersionShared, written by the update
// job since incremental deploys) the files are stored once per project by
// their content (ObjectKey, ObjectVariantKey) and shared by every
// deployment that holds them.
const (
	ManifestVersion       = 1
	ManifestVersionShared = 2
)

// ObjectKey returns the key of the content of hash (File.Hash) among the
// stored files of the project whose deployments live under projectPrefix
// (blobstore.ProjectPrefix), for manifests of version 2.
func ObjectKey(projectPrefix, hash string) string { return projectPrefix + "objects/" + hash }

// ObjectVariantKey returns the key of the enc copy of the stored file at
// objectKey (ObjectKey).
func ObjectVariantKey(objectKey string, enc int) string { return objectKey + "." + Names[enc] }

// Shared reports whether the manifest's files are stored by content
// (ObjectKey) rather than in the deployment's own folder.
func (m *Manifest) Shared() bool { return m.Version == ManifestVersionShared }

// Manifest lists every file of a published deployment, written by the
// update job after the files: what a server needs to answer a request
// without reading the store first (whether a file exists, its ETag, its
// compressed copies) and the deployment's time, its Last-Modified.
type Manifest struct {
	Version   int             `json:"version"`
	CreatedAt time.Time       `json:"createdAt"`
	Files     map[string]File `json:"files"`
}

// File is one file of a Manifest.
type File struct {
	// Hash is the first 128 bits of the content's SHA-256, in hex: the
	// file's strong ETag, the same in every deployment that holds the same
	// content, so a browser revalidating after a deployment gets a 304
	// for what did not change.
	Hash string `json:"hash"`
	Size int64  `json:"size"`
	// Br and Gzip are the sizes of the compressed copies; 0 when there is
	// none (not text, or not worth it).
	Br   int64 `json:"br,omitempty"`
	Gzip int64 `json:"gzip,omitempty"`
}

// Variant returns the size of the enc copy, 0 when there is none.
func (f File) Variant(enc int) int64 {
	if enc == Brotli {
		return f.Br
	}
	return f.Gzip
}

// Offered says which copies the file has, for Negotiate.
func (f File) Offered() [NumEncodings]bool {
	return [NumEncodings]bool{Brotli: f.Br > 0, Gzip: f.Gzip > 0}
}

// ETag is the file's quoted entity tag.
func (f File) ETag() string { return `"` + f.Hash + `"` }

// ParseManifest decodes a manifest, refusing one of an unknown version
// or without files.
func ParseManifest(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("the deployment's manifest is not valid JSON: %w", err)
	}
	if m.Version != ManifestVersion && m.Version != ManifestVersionShared || m.Files == nil {
		return nil, fmt.Errorf("the deployment's manifest has version %d and %d files; this Lectern reads versions %d and %d", m.Version, len(m.Files), ManifestVersion, ManifestVersionShared)
	}
	if m.Shared() {
		for name, f := range m.Files {
			if !ValidHash(f.Hash) {
				return nil, fmt.Errorf("the deployment's manifest gives %q the hash %q, not 32 hex digits", name, f.Hash)
			}
		}
	}
	return &m, nil
}

// ValidHash reports whether h is a File.Hash: 32 lower-case hex digits,
// so that an object key made of it names no other folder.
func ValidHash(h string) bool {
	if len(h) != 32 {
		return false
	}
	for i := range len(h) {
		if c := h[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// HashOf returns the File.Hash of what r holds, and its size.
func HashOf(r io.Reader) (hash string, size int64, err error) {
	h := sha256.New()
	if size, err = io.Copy(h, r); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil))[:32], size, nil
}

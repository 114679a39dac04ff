package features

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strings"
)

// Lectern's own assets.
//
// The files the build writes directly under ScriptDir (the theme's
// style.css, site.js and theme-init.js, the page actions' contextual.js,
// the features' scripts, the mermaid library, the wildcard redirects'
// script) carry a hash of their content in their names: "_lectern/style.css"
// is written as "_lectern/style.0123456789.css", and every reference to it
// uses that name. A new content is a new name, so servers send them
// immutable, for a year (HashedAsset). The name without the hash
// (AssetBase) is what the build and Transform know a file by. The other
// files under ScriptDir keep their names: the navigation files (NavDir),
// the search index's meta file and fragments (SearchDir; its chunks are
// named by their content in their own way), and the repository's scripts
// (CustomScriptDir).

// AssetHashLen is how many hexadecimal digits of its content's SHA-256 an
// own asset's name carries: 40 bits, enough for the few assets of a site
// and their versions.
const AssetHashLen = 10

// AssetName returns the name under which Lectern's own asset name (such as
// "_lectern/style.css") with content data is written:
// "_lectern/style.0123456789.css", the first AssetHashLen hexadecimal
// digits of the SHA-256 of data before the extension.
func AssetName(name string, data []byte) string {
	sum := sha256.Sum256(data)
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:])[:AssetHashLen] + ext
}

// HashedAsset reports whether the site file name (a clean slash path) is
// one of Lectern's own assets named by AssetName: directly under
// ScriptDir, with the hash before the extension. Its content never changes.
func HashedAsset(name string) bool {
	_, ok := assetBase(name)
	return ok
}

// AssetBase returns the name of Lectern's own asset name without its
// hash ("_lectern/style.css" for "_lectern/style.0123456789.css"), and
// name itself for any other file.
func AssetBase(name string) string {
	if base, ok := assetBase(name); ok {
		return base
	}
	return name
}

func assetBase(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ScriptDir)
	if !ok || strings.Contains(rest, "/") {
		return "", false
	}
	ext := path.Ext(rest)
	stem := strings.TrimSuffix(rest, ext)
	dot := len(stem) - AssetHashLen - 1
	if ext == "" || dot < 1 || stem[dot] != '.' || !isLowerHex(stem[dot+1:]) {
		return "", false
	}
	return ScriptDir + stem[:dot] + ext, true
}

// isLowerHex reports whether s is made of the digits 0-9 and a-f.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

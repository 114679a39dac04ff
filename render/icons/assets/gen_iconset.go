//go:build ignore

// gen_iconset holds what the generators of this folder share: the icon
// set format render/icons reads and the version of an npm package. Each
// generator is run with it (go run gen.go gen_iconset.go ...).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// writeIconSet writes an icon set to file: one "name<TAB>body" line per
// icon, then one "name<TAB>=target" line per alias, each sorted by name,
// and logs its size.
func writeIconSet(file string, icons, aliases map[string]string) {
	var b bytes.Buffer
	for _, n := range slices.Sorted(maps.Keys(icons)) {
		fmt.Fprintf(&b, "%s\t%s\n", n, icons[n])
	}
	for _, n := range slices.Sorted(maps.Keys(aliases)) {
		fmt.Fprintf(&b, "%s\t=%s\n", n, aliases[n])
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d icons, %d aliases, %d bytes", file, len(icons), len(aliases), b.Len())
}

// packageVersion returns the version of the unpacked npm package pkg.
func packageVersion(pkg string) string {
	data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		log.Fatal(err)
	}
	var p struct{ Version string }
	if err := json.Unmarshal(data, &p); err != nil {
		log.Fatal(err)
	}
	return p.Version
}

//go:build ignore

// gen_fontawesome writes fontawesome.txt, the Font Awesome Free icons
// embedded by render/icons, and LICENSE-fontawesome, from an unpacked
// @fortawesome/fontawesome-free npm package. Mintlify draws Font Awesome
// 7.1.0, so that version is the one bundled. Run from this folder:
//
//	mkdir /tmp/fa && cd /tmp/fa && npm pack @fortawesome/fontawesome-free@7.1.0
//	mkdir p && tar xzf fortawesome-fontawesome-free-7.1.0.tgz -C p
//	go run gen_fontawesome.go gen_iconset.go -fa /tmp/fa/p/package
//
// Only the path data of each icon is kept (the SVGs of svgs/ are one
// <path fill="currentColor"> in a viewBox 512 high): one line per icon,
// "style/name<TAB>width path", style being solid, regular or brands, and
// one line per alias, "style/alias<TAB>=style/name", from the aliases of
// metadata/icon-families.json. The icons are CC BY 4.0: LICENSE-fontawesome
// is the package's LICENSE.txt after a note of what was taken and how it
// was changed.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	// svgRE matches the whole of a Font Awesome Free SVG: a viewBox
	// 0 0 W 512, a comment, and one path.
	svgRE = regexp.MustCompile(`^<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ([0-9]+) 512">(?:<!--.*?-->)?<path fill="currentColor" d="([^"<>&]+)"/></svg>\s*$`)
	// pathRE is what path data may hold.
	pathRE = regexp.MustCompile(`^[MmLlHhVvCcSsQqTtAaZz0-9.,\- ]+$`)
)

var styles = []string{"solid", "regular", "brands"}

func main() {
	pkg := flag.String("fa", "", "unpacked @fortawesome/fontawesome-free package")
	flag.Parse()
	if *pkg == "" {
		log.Fatal("-fa is required")
	}
	version := packageVersion(*pkg)
	icons := map[string]string{}
	for _, style := range styles {
		files, err := filepath.Glob(filepath.Join(*pkg, "svgs", style, "*.svg"))
		if err != nil || len(files) == 0 {
			log.Fatalf("no icons under %s/svgs/%s", *pkg, style)
		}
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".svg")
			icons[style+"/"+name] = body(f)
		}
	}
	aliases := familyAliases(*pkg, icons)

	writeIconSet("fontawesome.txt", icons, aliases)
	lic, err := os.ReadFile(filepath.Join(*pkg, "LICENSE.txt"))
	if err != nil {
		log.Fatal(err)
	}
	var l bytes.Buffer
	fmt.Fprintf(&l, "Font Awesome icons (fontawesome.txt)\n\n")
	fmt.Fprintf(&l, "Font Awesome Free %s by @fontawesome - https://fontawesome.com\n", version)
	fmt.Fprintf(&l, "Icons: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/).\n")
	fmt.Fprintf(&l, "Copyright Fonticons, Inc.\n\n")
	fmt.Fprintf(&l, "fontawesome.txt holds the solid, regular and brands SVG icons of the\n")
	fmt.Fprintf(&l, "@fortawesome/fontawesome-free %s npm package (svgs/), changed only in form:\n", version)
	fmt.Fprintf(&l, "each icon is reduced to its width and path data, and the aliases of\n")
	fmt.Fprintf(&l, "metadata/icon-families.json are listed. No font or code of the package is\n")
	fmt.Fprintf(&l, "included. The package's licence follows.\n\n")
	l.WriteString("--- LICENSE.txt ---\n\n")
	l.Write(lic)
	if err := os.WriteFile("LICENSE-fontawesome", l.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// body returns "width path" of an icon file, refusing anything but the
// plain form every Free SVG has.
func body(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	m := svgRE.FindSubmatch(data)
	if m == nil {
		log.Fatalf("%s: not a single-path 512-high icon", file)
	}
	d := string(m[2])
	if !pathRE.MatchString(d) {
		log.Fatalf("%s: unexpected path data", file)
	}
	return string(m[1]) + " " + d
}

// familyAliases returns the aliases of metadata/icon-families.json, for
// each style of the icon that is bundled, keyed "style/alias". The package
// has a file for each alias too, a copy of its icon's: those copies are
// removed from icons.
func familyAliases(pkg string, icons map[string]string) map[string]string {
	data, err := os.ReadFile(filepath.Join(pkg, "metadata", "icon-families.json"))
	if err != nil {
		log.Fatal(err)
	}
	var fams map[string]struct {
		Aliases struct{ Names []string }
	}
	if err := json.Unmarshal(data, &fams); err != nil {
		log.Fatal(err)
	}
	aliases := map[string]string{}
	for name, f := range fams {
		for _, style := range styles {
			target := style + "/" + name
			if icons[target] == "" {
				continue
			}
			for _, a := range f.Aliases.Names {
				k := style + "/" + a
				if _, isFamily := fams[a]; isFamily {
					continue // an icon of its own
				}
				if copy, ok := icons[k]; ok && copy != icons[target] {
					log.Fatalf("%s: alias of %s with another drawing", k, target)
				}
				delete(icons, k)
				aliases[k] = target
			}
		}
	}
	return aliases
}

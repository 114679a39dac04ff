//go:build ignore

// gen writes lucide.txt, the icon set embedded by render/icons, from an
// unpacked lucide-static npm package (and, optionally, an older 0.x one for
// the brand icons that lucide 1.x dropped). Run from this folder:
//
//	mkdir /tmp/l && cd /tmp/l && npm pack lucide-static lucide-static@0.577.0
//	mkdir new old && tar xzf lucide-static-1.*.tgz -C new && tar xzf lucide-static-0.*.tgz -C old
//	go run gen.go gen_iconset.go -lucide /tmp/l/new/package -legacy /tmp/l/old/package
//
// lucide.txt has one line per icon, "name<TAB>inner SVG", and one per alias,
// "name<TAB>=target". LICENSE is the packages' licence (ISC).
package main

import (
	"bytes"
	"flag"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

var (
	commentRE = regexp.MustCompile(`(?s)<!--.*?-->`)
	svgRE     = regexp.MustCompile(`(?s)<svg[^>]*>(.*)</svg>`)
	spaceRE   = regexp.MustCompile(`\s+`)
	exportRE  = regexp.MustCompile(`export \{([^}]*)\} from '\./icons/([a-z0-9-]+)\.mjs'`)
	nameRE    = regexp.MustCompile(`default as (\w+)`)
)

func main() {
	lucide := flag.String("lucide", "", "unpacked lucide-static package (1.x)")
	legacy := flag.String("legacy", "", "unpacked lucide-static 0.x package, for the brand icons")
	flag.Parse()
	if *lucide == "" {
		log.Fatal("-lucide is required")
	}
	icons := map[string]string{}
	read(*lucide, icons, false)
	if *legacy != "" {
		read(*legacy, icons, true)
	}
	aliases := map[string]string{}
	mjs, err := os.ReadFile(filepath.Join(*lucide, "dist/esm/lucide-static.mjs"))
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range exportRE.FindAllStringSubmatch(string(mjs), -1) {
		target := m[2]
		if icons[target] == "" {
			continue
		}
		for _, n := range nameRE.FindAllStringSubmatch(m[1], -1) {
			a := kebab(n[1])
			if icons[a] == "" && a != target {
				aliases[a] = target
			}
		}
	}
	writeIconSet("lucide.txt", icons, aliases)
	lic, err := os.ReadFile(filepath.Join(*lucide, "LICENSE"))
	if err != nil {
		log.Fatal(err)
	}
	if *legacy != "" {
		old, err := os.ReadFile(filepath.Join(*legacy, "LICENSE"))
		if err == nil && !bytes.Equal(old, lic) {
			lic = append(append(lic, "\n--- brand icons, from lucide-static 0.x ---\n\n"...), old...)
		}
	}
	if err := os.WriteFile("LICENSE", lic, 0o644); err != nil {
		log.Fatal(err)
	}
}

// read adds the icons of pkg/icons; onlyNew keeps existing entries.
func read(pkg string, icons map[string]string, onlyNew bool) {
	files, err := filepath.Glob(filepath.Join(pkg, "icons", "*.svg"))
	if err != nil || len(files) == 0 {
		log.Fatalf("no icons under %s/icons", pkg)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".svg")
		if onlyNew && icons[name] != "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			log.Fatal(err)
		}
		m := svgRE.FindSubmatch(commentRE.ReplaceAll(data, nil))
		if m == nil {
			log.Fatalf("%s: no <svg>", f)
		}
		inner := strings.TrimSpace(spaceRE.ReplaceAllString(string(m[1]), " "))
		inner = strings.ReplaceAll(inner, "> <", "><")
		inner = strings.ReplaceAll(inner, " />", "/>")
		icons[name] = inner
	}
}

// kebab turns an export name (ArrowDown01) into an icon name (arrow-down-01).
func kebab(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			prev := rune(s[i-1])
			if unicode.IsUpper(r) || (unicode.IsDigit(r) && !unicode.IsDigit(prev)) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

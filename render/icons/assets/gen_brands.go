//go:build ignore

// gen_brands writes brands.txt, the brand icons embedded by render/icons,
// and LICENSE-brands, from an unpacked simple-icons npm package (CC0-1.0)
// and, for the few brands Simple Icons does not carry, an unpacked
// @lobehub/icons-static-svg package (MIT). Run from this folder:
//
//	mkdir /tmp/b && cd /tmp/b && npm pack simple-icons @lobehub/icons-static-svg
//	mkdir si lobe && tar xzf simple-icons-*.tgz -C si && tar xzf lobehub-icons-static-svg-*.tgz -C lobe
//	go run gen_brands.go gen_iconset.go -simple-icons /tmp/b/si/package -lobe /tmp/b/lobe/package
//
// Only the curated set below is bundled: every key Mintlify accepts in
// footer.socials and the Font Awesome brand names documentation sites use
// as icons. Simple Icons gives some icons a licence of their own (CC-BY,
// CC-BY-SA, MIT); those are refused, so that every bundled Simple Icons
// icon is CC0. brands.txt has the format of lucide.txt: one line per icon,
// "name<TAB>inner SVG" (24×24, filled with currentColor), and one per
// alias, "name<TAB>=target".
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
	"sort"
	"strings"
)

// brand is a bundled icon: its name in Lectern (the Font Awesome name when
// there is one), the package it comes from, its file name there, and the
// other names that show it.
type brand struct {
	name, from, slug string
	aliases          []string
}

const (
	simple = "simple-icons"
	lobe   = "lobe"
)

var brands = []brand{
	// footer.socials keys (slack, linkedin and twitter are Lucide's brand
	// icons, website and podcast are not brands).
	{"x-twitter", simple, "x", []string{"square-x-twitter"}},
	{"facebook", simple, "facebook", []string{"facebook-f", "square-facebook"}},
	{"youtube", simple, "youtube", []string{"square-youtube"}},
	{"discord", simple, "discord", nil},
	{"github", simple, "github", []string{"github-alt", "square-github"}},
	{"instagram", simple, "instagram", []string{"square-instagram"}},
	{"hacker-news", simple, "ycombinator", []string{"y-combinator", "square-hacker-news"}},
	{"medium", simple, "medium", []string{"medium-m"}},
	{"telegram", simple, "telegram", []string{"telegram-plane"}},
	{"threads", simple, "threads", []string{"square-threads"}},
	{"reddit", simple, "reddit", []string{"reddit-alien", "square-reddit"}},
	{"bluesky", simple, "bluesky", nil},
	{"mastodon", simple, "mastodon", nil},
	// Brands used as icons.
	{"openai", lobe, "openai", nil},
	{"anthropic", simple, "anthropic", nil},
	{"claude", simple, "claude", nil},
	{"aws", lobe, "aws", nil},
	{"microsoft", lobe, "microsoft", nil},
	{"google", simple, "google", nil},
	{"apple", simple, "apple", nil},
	{"whatsapp", simple, "whatsapp", []string{"square-whatsapp"}},
	{"docker", simple, "docker", nil},
	{"python", simple, "python", nil},
	{"swift", simple, "swift", nil},
	{"c", simple, "c", nil},
	{"react", simple, "react", nil},
	{"node-js", simple, "nodedotjs", []string{"node", "nodejs"}},
	{"npm", simple, "npm", nil},
	{"gitlab", simple, "gitlab", []string{"square-gitlab"}},
	{"bitbucket", simple, "bitbucket", nil},
	{"golang", simple, "go", nil},
	{"linux", simple, "linux", nil},
	{"ubuntu", simple, "ubuntu", nil},
	{"markdown", simple, "markdown", nil},
	{"stripe", simple, "stripe", []string{"stripe-s"}},
	{"paypal", simple, "paypal", nil},
	{"shopify", simple, "shopify", nil},
	{"hubspot", simple, "hubspot", nil},
	{"figma", simple, "figma", nil},
	{"cloudflare", simple, "cloudflare", nil},
	{"wordpress", simple, "wordpress", []string{"wordpress-simple"}},
	{"jira", simple, "jira", nil},
	{"confluence", simple, "confluence", nil},
	{"trello", simple, "trello", nil},
	{"dropbox", simple, "dropbox", nil},
	{"google-drive", simple, "googledrive", nil},
	{"google-play", simple, "googleplay", nil},
	{"app-store", simple, "appstore", []string{"app-store-ios"}},
	{"chrome", simple, "googlechrome", nil},
	{"firefox", simple, "firefox", []string{"firefox-browser"}},
	{"safari", simple, "safari", nil},
	{"stack-overflow", simple, "stackoverflow", nil},
	{"dev", simple, "devdotto", nil},
	{"twitch", simple, "twitch", nil},
	{"tiktok", simple, "tiktok", nil},
	{"spotify", simple, "spotify", nil},
	{"pinterest", simple, "pinterest", []string{"pinterest-p", "square-pinterest"}},
	{"snapchat", simple, "snapchat", nil},
	{"bitcoin", simple, "bitcoin", nil},
	{"ethereum", simple, "ethereum", nil},
	{"unity", simple, "unity", nil},
}

var (
	svgRE   = regexp.MustCompile(`(?s)<svg([^>]*)>(.*)</svg>`)
	titleRE = regexp.MustCompile(`(?s)<title>.*?</title>`)
	spaceRE = regexp.MustCompile(`\s+`)
)

func main() {
	si := flag.String("simple-icons", "", "unpacked simple-icons package")
	lb := flag.String("lobe", "", "unpacked @lobehub/icons-static-svg package")
	flag.Parse()
	if *si == "" || *lb == "" {
		log.Fatal("-simple-icons and -lobe are required")
	}
	siVersion, lbVersion := packageVersion(*si), packageVersion(*lb)
	licences := siLicences(*si)

	icons := map[string]string{}
	aliases := map[string]string{}
	used := map[string][]string{}
	for _, b := range brands {
		dir := *si
		if b.from == lobe {
			dir = *lb
		} else if l := licences[b.slug]; l != "" && l != "CC0-1.0" {
			log.Fatalf("%s: simple-icons gives %s its own licence, %s", b.name, b.slug, l)
		}
		icons[b.name] = inner(filepath.Join(dir, "icons", b.slug+".svg"))
		used[b.from] = append(used[b.from], b.name)
		for _, a := range b.aliases {
			aliases[a] = b.name
		}
	}
	writeIconSet("brands.txt", icons, aliases)

	cc0, err := os.ReadFile(filepath.Join(*si, "LICENSE.md"))
	if err != nil {
		log.Fatal(err)
	}
	var lic bytes.Buffer
	fmt.Fprintf(&lic, "Brand icons (brands.txt)\n\n")
	fmt.Fprintf(&lic, "The brand names and logos are trademarks of their owners; they are shown\n")
	fmt.Fprintf(&lic, "only to name the service a link or a section is about.\n\n")
	fmt.Fprintf(&lic, "From simple-icons %s (https://simpleicons.org), CC0-1.0:\n\n%s\n\n", siVersion, wrap(used[simple]))
	fmt.Fprintf(&lic, "From @lobehub/icons-static-svg %s (https://github.com/lobehub/lobe-icons), MIT:\n\n%s\n\n", lbVersion, wrap(used[lobe]))
	fmt.Fprintf(&lic, "--- simple-icons ---\n\n%s\n\n--- @lobehub/icons-static-svg ---\n\n%s", bytes.TrimSpace(cc0), mitLicence)
	if err := os.WriteFile("LICENSE-brands", lic.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// inner returns the content of an icon's <svg>, without its title, with
// the root's fill-rule (if any) kept on a group.
func inner(file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		log.Fatal(err)
	}
	m := svgRE.FindSubmatch(data)
	if m == nil {
		log.Fatalf("%s: no <svg>", file)
	}
	if !bytes.Contains(m[1], []byte(`viewBox="0 0 24 24"`)) {
		log.Fatalf("%s: not a 24×24 icon", file)
	}
	body := string(titleRE.ReplaceAll(m[2], nil))
	body = strings.TrimSpace(spaceRE.ReplaceAllString(body, " "))
	body = strings.ReplaceAll(body, "></path>", "/>")
	body = strings.ReplaceAll(body, "> <", "><")
	if bytes.Contains(m[1], []byte(`fill-rule="evenodd"`)) {
		body = `<g fill-rule="evenodd">` + body + `</g>`
	}
	if strings.ContainsAny(body, "\t\n") || strings.Contains(body, "<script") || strings.Contains(body, "href") {
		log.Fatalf("%s: unexpected content", file)
	}
	return body
}

// siLicences maps each Simple Icons slug that has a licence of its own to
// that licence's type.
func siLicences(pkg string) map[string]string {
	data, err := os.ReadFile(filepath.Join(pkg, "data", "simple-icons.json"))
	if err != nil {
		log.Fatal(err)
	}
	var list []struct {
		Slug    string
		License *struct{ Type string }
	}
	if err := json.Unmarshal(data, &list); err != nil {
		log.Fatal(err)
	}
	m := map[string]string{}
	for _, x := range list {
		if x.License != nil {
			m[x.Slug] = x.License.Type
		}
	}
	return m
}

func wrap(names []string) string {
	sort.Strings(names)
	var b strings.Builder
	line := 0
	for i, n := range names {
		if i > 0 {
			b.WriteString(",")
			line++
			if line+len(n) > 72 {
				b.WriteString("\n")
				line = 0
			} else {
				b.WriteString(" ")
				line++
			}
		}
		b.WriteString(n)
		line += len(n)
	}
	return b.String()
}

const mitLicence = `MIT License

Copyright (c) 2023 LobeHub

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`

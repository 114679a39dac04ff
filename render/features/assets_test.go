package features

import (
	"regexp"
	"testing"

	"lectern.dev/lectern"
)

func TestAssetName(t *testing.T) {
	t.Parallel()
	a := AssetName("_lectern/style.css", []byte("body { color: red }"))
	b := AssetName("_lectern/style.css", []byte("body { color: blue }"))
	if !regexp.MustCompile(`^_lectern/style\.[0-9a-f]{10}\.css$`).MatchString(a) {
		t.Fatalf("AssetName = %q, want _lectern/style.<10 hex digits>.css", a)
	}
	if a == b {
		t.Errorf("two contents have one name %q", a)
	}
	if again := AssetName("_lectern/style.css", []byte("body { color: red }")); again != a {
		t.Errorf("AssetName is not deterministic: %q then %q", a, again)
	}
	// The name lectern selfhost takes for a hashed one (selfhost: hashedAsset).
	selfhost := regexp.MustCompile(`[.-][0-9a-f]{8,64}\.[A-Za-z0-9]+$`)
	for _, name := range []string{a, AssetName("_lectern/mermaid.min.js", []byte("x"))} {
		if !selfhost.MatchString(name) {
			t.Errorf("%s does not look hashed to lectern selfhost", name)
		}
		if !HashedAsset(name) || Revalidated(name) {
			t.Errorf("%s: HashedAsset = %v, Revalidated = %v; want true, false", name, HashedAsset(name), Revalidated(name))
		}
	}
	if m := AssetName("_lectern/mermaid.min.js", []byte("x")); AssetBase(m) != "_lectern/mermaid.min.js" {
		t.Errorf("AssetBase(%s) = %s", m, AssetBase(m))
	}
}

func TestAssetBase(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"_lectern/style.0123456789.css":       "_lectern/style.css",
		"_lectern/theme-init.abcdef0123.js":   "_lectern/theme-init.js",
		"_lectern/mermaid.min.0123456789.js":  "_lectern/mermaid.min.js",
		"_lectern/style.css":                  "",
		"_lectern/app.3f2a9c1d.js":            "", // 8 digits: not one of the build's
		"_lectern/style.0123456789a.css":      "", // 11
		"_lectern/style.012345678G.css":       "",
		"_lectern/style.0123456789":           "",
		"_lectern/.0123456789.css":            "",
		"_lectern/nav/site.0123456789.js":     "", // navigation files keep their names
		"_lectern/custom/a.0123456789.js":     "", // the repository's scripts too
		"_lectern/search/c/0123456789.js":     "",
		"_lectern/search/meta.0123456789.js":  "",
		"assets/style.0123456789.css":         "", // a file of the repository
		"_lectern/style.0123456789.css/x.css": "",
	} {
		base, hashed := AssetBase(name), HashedAsset(name)
		if want == "" {
			if hashed || base != name {
				t.Errorf("%s: HashedAsset = %v, AssetBase = %s; want false and the name", name, hashed, base)
			}
			continue
		}
		if !hashed || base != want {
			t.Errorf("%s: HashedAsset = %v, AssetBase = %s; want true and %s", name, hashed, base, want)
		}
	}
}

// TestTransformHashedAssets checks that the files of a feature are known
// by their hashed names: dropped when it is off, their regions
// transformed.
func TestTransformHashedAssets(t *testing.T) {
	t.Parallel()
	search := AssetName(SearchJSFile, []byte("search"))
	playground := AssetName(PlaygroundJSFile, []byte("pg"))
	for name, feat := range map[string]lectern.Feature{search: lectern.FeatureSearch, playground: lectern.FeaturePlayground,
		AssetName(AssistantJSFile, nil): lectern.FeatureAssistant, AssetName(AnalyticsJSFile, nil): lectern.FeatureAnalytics} {
		if got, ok := FileFeature(name); !ok || got != feat {
			t.Errorf("FileFeature(%s) = %q, %v; want %q", name, got, ok, feat)
		}
	}
	if _, keep, err := (Site{Playground: true}).Transform(search, []byte("x")); err != nil || keep {
		t.Errorf("search.js kept without search (err %v)", err)
	}
	if _, keep, _ := (Site{Search: true}).Transform(search, []byte("x")); !keep {
		t.Error("search.js dropped with search on")
	}
	if _, ok := FileFeature(AssetName("_lectern/site.js", nil)); ok {
		t.Error("site.js taken for a feature's file")
	}
	css := []byte("a{}\n" + CSSBeginMarker(lectern.FeatureSearch) + ".lc-search{}" + CSSEndMarker(lectern.FeatureSearch) + "\n")
	out, keep, _ := Site{}.Transform(AssetName("_lectern/style.css", css), css)
	if !keep || string(out) != "a{}\n" {
		t.Errorf("style.css with its hash transformed to %q (kept %v)", out, keep)
	}
}

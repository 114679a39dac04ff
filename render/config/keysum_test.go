package config

import (
	"testing"
	"testing/fstest"

	"lectern.dev/lectern/render/diag"
)

// TestKeySum checks what the rebuild cache's key sees of docs.json: not
// the pages its navigation lists, nor white space or a byte-order mark;
// everything else.
func TestKeySum(t *testing.T) {
	keySum := func(docs string) string {
		cfg, err := Load(fstest.MapFS{"docs.json": {Data: []byte(docs)}}, &diag.Warner{}, 1<<20)
		if err != nil {
			t.Fatalf("%s: %v", docs, err)
		}
		return cfg.KeySum()
	}
	base := keySum(`{"name":"A","navigation":{"groups":[{"group":"G","pages":["a","b"]},{"group":"H","pages":["c"]}]}}`)
	for _, same := range []string{
		`{"name":"A","navigation":{"groups":[{"group":"G","pages":["a"]},{"group":"H","pages":["b","c"]}]}}`,
		"\xef\xbb\xbf{ \"navigation\": {\"groups\": [{\"group\": \"G\", \"pages\": []}, {\"group\": \"H\", \"pages\": [\"x\"]}]},\n \"name\": \"A\" }",
	} {
		if got := keySum(same); got != base {
			t.Errorf("%q: the key changed", same)
		}
	}
	for _, other := range []string{
		`{"name":"B","navigation":{"groups":[{"group":"G","pages":["a","b"]},{"group":"H","pages":["c"]}]}}`,
		`{"name":"A","navigation":{"groups":[{"group":"G2","pages":["a","b"]},{"group":"H","pages":["c"]}]}}`,
		`{"name":"A","navigation":{"groups":[{"group":"G","pages":["a","b",{"group":"N","pages":["z"]}]},{"group":"H","pages":["c"]}]}}`,
		`{"name":"A","pages":["x"],"navigation":{"groups":[{"group":"G","pages":["a","b"]},{"group":"H","pages":["c"]}]}}`,
	} {
		if got := keySum(other); got == base {
			t.Errorf("%q: the key did not change", other)
		}
	}
	if keySum(`{"n":12345678901234567890}`) == keySum(`{"n":12345678901234567891}`) {
		t.Error("numbers past float64's precision hash alike")
	}
}

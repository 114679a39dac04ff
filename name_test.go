package lectern

import (
	"strings"
	"testing"
)

func TestNormalizeName(t *testing.T) {
	for in, want := range map[string]string{
		"  Acme Docs ":                       "Acme Docs",
		"Ünïcödé":                            "Ünïcödé",
		strings.Repeat("é", 200):             strings.Repeat("é", 200),
		"tab\tinside":                        "",
		"bell\x07":                           "",
		"del\x7f":                            "",
		" \t ":                               "",
		strings.Repeat("a", 201):             "",
		" " + strings.Repeat("a", 200) + " ": strings.Repeat("a", 200),
	} {
		got, err := NormalizeName(in)
		if want == "" {
			if ErrorCode(err) != EINVALID {
				t.Errorf("NormalizeName(%q) = %q, %v; want EINVALID", in, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("NormalizeName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

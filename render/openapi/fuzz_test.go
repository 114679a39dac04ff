package openapi

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// FuzzParse reads documents an organization could commit, JSON or YAML,
// with a small bound on the values they expand to: parsing never panics,
// and a document refused for its size is refused with the bound it broke.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"openapi": "3.1.0", "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}}}`))
	f.Add([]byte("openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses: {'200': {$ref: '#/x'}}\nx: {description: ok}\n"))
	f.Add([]byte("openapi: 3.0.0\nx-a: &a [1, 2, 3]\nx-b: &b [*a, *a, *a]\nx-c: [*b, *b, *b, *b]\npaths: {}\n"))
	f.Add([]byte("openapi: 3.0.0\nx: &x {a: *x}\n"))
	f.Add([]byte(strings.Repeat("[", 600)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		d, err := ParseFilesMax("api.yaml", data, func(string) ([]byte, error) { return data, nil }, 5000)
		var ve *ValuesError
		if errors.As(err, &ve) && ve.Max != 5000 {
			t.Fatalf("refused with bound %d, want 5000", ve.Max)
		}
		if err == nil && d == nil {
			t.Fatal("no document and no error")
		}
	})
}

// TestAliasesCounted checks that a value an alias repeats counts each
// time, so that nested aliases are refused however small the file.
func TestAliasesCounted(t *testing.T) {
	doc := "openapi: 3.0.0\nx-a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nx-b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nx-c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\npaths: {}\n"
	if _, err := ParseFilesMax("a.yaml", []byte(doc), nil, 1000); err == nil {
		t.Fatal("1,000+ values accepted under a bound of 1,000")
	}
	if _, err := ParseFilesMax("a.yaml", []byte(doc), nil, 2000); err != nil {
		t.Fatalf("under the bound: %v", err)
	}
}

// TestRefFilesShareTheBound checks that the files of $refs count against
// the document's bound together, not each against a bound of its own: 40
// files just under it would otherwise hold 40 times the values.
func TestRefFilesShareTheBound(t *testing.T) {
	const part = "x-a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nx-b: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" // ~120 values
	doc := "openapi: 3.0.0\npaths: {}\ncomponents:\n  schemas:\n"
	for i := range 40 {
		doc += fmt.Sprintf("    S%d: {$ref: 'part%d.yaml#/x-b'}\n", i, i)
	}
	read := func(string) ([]byte, error) { return []byte(part), nil }
	_, err := ParseFilesMax("a.yaml", []byte(doc), read, 1000)
	var ve *ValuesError
	if !errors.As(err, &ve) || ve.File == "" {
		t.Fatalf("40 files of ~120 values each under a bound of 1,000: err = %v, want a ValuesError naming a file", err)
	}
	if _, err := ParseFilesMax("a.yaml", []byte(doc), read, 10_000); err != nil {
		t.Fatalf("under the bound: %v", err)
	}
}

package apidoc

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/api.md from the OpenAPI document")

const (
	specPath = "../../httpapi/openapi.json"
	docPath  = "../../docs/api.md"
)

// docs/api.md is what the OpenAPI document generates.
func TestAPIDocIsCurrent(t *testing.T) {
	spec, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Markdown(spec)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(docPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/apidoc -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("docs/api.md is not what httpapi/openapi.json generates: run go test ./internal/apidoc -update")
	}
}

// The reference leaves nothing of the document out: every path and
// operation, every schema and field, every response status of every
// operation and every error code.
func TestAPIDocCoversTheDocument(t *testing.T) {
	spec, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Markdown(spec)
	if err != nil {
		t.Fatal(err)
	}
	md := string(out)
	var root map[string]any
	if err := json.Unmarshal(spec, &root); err != nil {
		t.Fatal(err)
	}
	d := &doc{root: root}
	for path, ops := range obj(root["paths"]) {
		for _, m := range methods {
			op := obj(obj(ops)[m])
			if op == nil {
				continue
			}
			id := str(op["operationId"])
			head := "`" + strings.ToUpper(m) + " /v1" + path + "` (`" + id + "`)"
			i := strings.Index(md, head)
			if i < 0 {
				t.Errorf("no section for %s", head)
				continue
			}
			section := md[i:]
			if j := strings.Index(section, "\n## "); j >= 0 {
				section = section[:j]
			}
			for status, r := range obj(op["responses"]) {
				if !strings.Contains(section, "\n| "+status+" | ") {
					t.Errorf("%s: response %s missing", id, status)
				}
				for _, c := range d.codes(d.resolve(obj(r))) {
					if !strings.Contains(section, "`"+c+"`") {
						t.Errorf("%s: code %s of response %s missing", id, c, status)
					}
				}
			}
			if !strings.Contains(section, "```sh\ncurl ") {
				t.Errorf("%s: no curl example", id)
			}
		}
	}
	for name, s := range obj(obj(root["components"])["schemas"]) {
		i := strings.Index(md, "### "+name+"\n")
		if i < 0 {
			t.Errorf("schema %s missing", name)
			continue
		}
		section := md[i:]
		if j := strings.Index(section[4:], "\n### "); j >= 0 {
			section = section[:j+4]
		}
		for field := range obj(obj(s)["properties"]) {
			if !strings.Contains(section, "| `"+field+"` |") {
				t.Errorf("schema %s: field %s missing", name, field)
			}
		}
	}
}

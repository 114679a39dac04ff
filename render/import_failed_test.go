package render

import (
	"strings"
	"testing"
)

// A component whose import failed is a visible placeholder with a warning
// naming it, never a silent gap (a heading with nothing under it).
func TestFailedImportPlaceholder(t *testing.T) {
	t.Parallel()
	res, out := build(t, `-- docs.json --
{"name": "X", "navigation": {"pages": ["index"]}}
-- index.mdx --
import { Table } from "/snippets/missing.jsx";

## Compatibility

<Table rows={3} />

<Table>Kept text</Table>
`, Options{})
	page := out.get(t, "index.html")
	if !strings.Contains(page, `<div class="lc-placeholder" role="note">Interactive component <code>Table</code>`) {
		t.Errorf("no placeholder for the component of a failed import:\n%s", page)
	}
	if !strings.Contains(page, "Kept text") {
		t.Errorf("the children of a component of a failed import are lost")
	}
	var named int
	for _, w := range res.Warnings {
		if strings.Contains(w.Message, "<Table> is not rendered: the import that defines it failed") {
			named++
		}
	}
	if named != 1 {
		t.Errorf("%d warnings name the component, want 1: %v", named, res.Warnings)
	}
}

package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestContextual(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, docs string
		want       []string
		configured bool
		// warns are substrings of the warnings, one each, in order.
		warns []string
	}{
		{name: "absent", docs: `{"name": "X"}`, want: DefaultContextual},
		{name: "copy and view", docs: `{"contextual": {"options": ["copy", "view"]}}`, want: []string{"copy", "view"}, configured: true},
		{name: "order kept, case and spaces", docs: `{"contextual": {"options": [" View", "COPY", "view"]}}`, want: []string{"view", "copy"}, configured: true},
		{name: "empty list turns it off", docs: `{"contextual": {"options": []}}`, want: []string{}, configured: true},
		{name: "outside services left out", docs: `{"contextual": {"options": ["copy", "chatgpt", "claude", "perplexity", "mcp", "cursor", "vscode"]}}`,
			want: []string{"copy"}, configured: true,
			warns: []string{`contextual options "chatgpt", "claude", "perplexity", "mcp", "cursor", "vscode" send the page to another service`}},
		{name: "unknown and custom", docs: `{"contextual": {"options": ["view", "fax", {"title": "Mine", "href": "https://x.test"}, 3]}}`,
			want: []string{"view"}, configured: true,
			warns: []string{`unknown contextual options "fax"`, `contextual.options holds a custom option "Mine", 3, which Lectern does not support`}},
		{name: "options not a list", docs: `{"contextual": {"options": "copy"}}`, want: DefaultContextual,
			warns: []string{`contextual.options must be a list`}},
		{name: "not an object", docs: `{"contextual": true}`, want: DefaultContextual, warns: []string{"contextual must be an object"}},
		{name: "no options key", docs: `{"contextual": {}}`, want: DefaultContextual},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg, warns := load(t, "docs.json", c.docs)
			if got := cfg.Contextual.Offered(); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Offered() = %q, want %q", got, c.want)
			}
			if cfg.Contextual.Configured != c.configured {
				t.Errorf("Configured = %v, want %v", cfg.Contextual.Configured, c.configured)
			}
			if len(warns) != len(c.warns) {
				t.Fatalf("warnings %q, want %d like %q", warns, len(c.warns), c.warns)
			}
			for i, w := range c.warns {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warns[i], w)
				}
			}
		})
	}
}

// TestContextualMintJSON: mint.json has no contextual menu setting; its
// sites get the default menu, and a "contextual" key there is not read.
func TestContextualMintJSON(t *testing.T) {
	t.Parallel()
	cfg, warns := load(t, "mint.json", `{"name": "X", "navigation": [], "contextual": {"options": []}}`)
	if got := cfg.Contextual.Offered(); !reflect.DeepEqual(got, DefaultContextual) || len(warns) > 0 {
		t.Errorf("mint.json: Offered() = %q, warnings %q", got, warns)
	}
}

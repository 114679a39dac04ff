package icons

import (
	"sort"
	"strings"
	"testing"
)

// Every faIcons entry is used: its key is neither a Lucide nor a brand
// icon, and its target is a Lucide icon.
func TestFAIconsUsed(t *testing.T) {
	var shadowed, broken []string
	for k, v := range faIcons {
		if _, ok := lucideIcons()[k]; ok {
			shadowed = append(shadowed, k)
		}
		if _, ok := lucideIcons()[v]; !ok {
			broken = append(broken, k+"→"+v)
		}
	}
	sort.Strings(shadowed)
	sort.Strings(broken)
	if len(shadowed) > 0 {
		t.Errorf("%d faIcons keys are Lucide icons of their own, never looked up: %q", len(shadowed), shadowed)
	}
	if len(broken) > 0 {
		t.Errorf("faIcons targets that are not Lucide icons: %q", broken)
	}
}

// The bundled icon bodies are written into every page as they are: none
// may hold script, an event handler or a link (the brand generator checks
// its own; this covers every set as committed).
func TestIconBodiesInert(t *testing.T) {
	sets := map[string]map[string]string{"lucide": lucideIcons(), "brands": brandIcons(), "fontawesome": faIconSet()}
	for set, m := range sets {
		for name, body := range m {
			low := strings.ToLower(body)
			for _, bad := range []string{"<script", "href", "javascript:", "<foreignobject", "<use", " on", `"`, "<"} {
				if set == "fontawesome" || bad != `"` && bad != "<" {
					if strings.Contains(low, bad) {
						t.Errorf("%s icon %q holds %q", set, name, bad)
					}
				}
			}
		}
	}
}

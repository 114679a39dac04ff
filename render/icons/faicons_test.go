package icons

import (
	"sort"
	"testing"
)

// Every faIcons entry is used: its key is neither a Lucide nor a brand
// icon (lookup finds those first), and its target is a Lucide icon.
func TestFAIconsUsed(t *testing.T) {
	var shadowed, broken []string
	for k, v := range faIcons {
		if _, ok := lucideIcons()[k]; ok {
			shadowed = append(shadowed, k)
		} else if _, ok := brandIcons()[k]; ok {
			shadowed = append(shadowed, k)
		}
		if _, ok := lucideIcons()[v]; !ok {
			broken = append(broken, k+"→"+v)
		}
	}
	sort.Strings(shadowed)
	sort.Strings(broken)
	if len(shadowed) > 0 {
		t.Errorf("%d faIcons keys are icons of their own, never looked up: %q", len(shadowed), shadowed)
	}
	if len(broken) > 0 {
		t.Errorf("faIcons targets that are not Lucide icons: %q", broken)
	}
}

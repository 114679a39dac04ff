package cli

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

// --org-jobs-by-plan takes plan=N pairs and refuses anything else with a
// message that says how to write it, changing nothing.
func TestPlanLimitsFlag(t *testing.T) {
	var f planLimitsFlag
	if err := f.Set("enterprise=4, pro=2,free=0"); err != nil {
		t.Fatal(err)
	}
	if f[lectern.PlanEnterprise] != 4 || f[lectern.PlanPro] != 2 || f[lectern.PlanFree] != 0 || len(f) != 3 {
		t.Errorf("parsed %v", f)
	}
	if got := f.String(); got != "free=0,pro=2,enterprise=4" {
		t.Errorf("String() = %q", got)
	}
	for in, want := range map[string]string{
		"gold=3":        "unknown plan",
		"enterprise":    "plan=N",
		"pro=-1":        "whole number",
		"enterprise=x":  "whole number",
		"pro=2,ent=foo": "unknown plan",
	} {
		g := planLimitsFlag{lectern.PlanPro: 9}
		err := g.Set(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%q) = %v, want an error saying %q", in, err, want)
		}
		if g[lectern.PlanPro] != 9 || len(g) != 1 {
			t.Errorf("Set(%q) failed but changed the flag to %v", in, g)
		}
	}
}

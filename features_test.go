package lectern

import (
	"strings"
	"testing"
)

// The table must match the service spec's feature table cell by cell.
func TestFeatureTableMatchesSpec(t *testing.T) {
	t.Parallel()
	want := map[Feature][3]Availability{ // cloud, client-hosted, air-gapped
		FeatureSearch:       {Available, Configurable, Unavailable},
		FeatureAssistant:    {Available, Configurable, Unavailable},
		FeatureAnalytics:    {Available, Configurable, Unavailable},
		FeaturePlayground:   {Available, Available, Configurable},
		FeatureStaticExport: {Available, Available, Available},
	}
	types := [3]DeploymentType{DeploymentCloud, DeploymentClientHosted, DeploymentAirGapped}
	if len(Features) != len(want) {
		t.Fatalf("Features has %d entries, want %d", len(Features), len(want))
	}
	for _, f := range Features {
		for i, dt := range types {
			got, ok := FeatureAvailability(dt, f)
			if !ok || got != want[f][i] {
				t.Errorf("%s in %s = %q (ok %v), want %q", f, dt, got, ok, want[f][i])
			}
		}
	}
	if _, ok := FeatureAvailability("on-prem", FeatureSearch); ok {
		t.Error("unknown deployment type reported as known")
	}
}

func TestFeatureEnabled(t *testing.T) {
	t.Parallel()
	cases := []struct {
		dt             DeploymentType
		f              Feature
		requested, set bool
		want           bool
		err            string
	}{
		{DeploymentClientHosted, FeatureSearch, true, true, true, ""},
		{DeploymentClientHosted, FeatureSearch, false, true, false, ""},
		{DeploymentClientHosted, FeatureSearch, false, false, false, ""},
		{DeploymentClientHosted, FeaturePlayground, false, false, true, ""},
		{DeploymentClientHosted, FeaturePlayground, false, true, false, "cannot be turned off"},
		{DeploymentAirGapped, FeatureSearch, true, true, false, "search is unavailable for deployment type air-gapped"},
		{DeploymentAirGapped, FeatureAnalytics, false, true, false, ""},
		{DeploymentAirGapped, FeaturePlayground, true, true, true, ""},
		{DeploymentAirGapped, FeaturePlayground, false, false, false, ""},
	}
	for _, c := range cases {
		got, err := FeatureEnabled(c.dt, c.f, c.requested, c.set)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || ErrorCode(err) != EINVALID {
				t.Errorf("%s/%s: err %v, want EINVALID containing %q", c.dt, c.f, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s/%s(%v,%v) = %v, %v; want %v", c.dt, c.f, c.requested, c.set, got, err, c.want)
		}
	}
}

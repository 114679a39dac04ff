package selfhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

// TestOwnAnalyticsConfig: analytics on without an endpoint are selfhost's
// own, with the read API's key from a file or the environment (a Lectern
// API key, never shown by --check) and the retentions; their keys are
// refused where the own analytics are not (off, air-gapped, an endpoint).
func TestOwnAnalyticsConfig(t *testing.T) {
	t.Parallel()
	const head = "staticExport: {enabled: true, bundleUrl: \"" + link + "\"}\n"
	base := "deployment: {type: client-hosted}\n" + head + "features: {analytics: true}\n"
	c, err := LoadConfig(writeConfig(t, base), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.SiteFeatures(); !c.OwnAnalytics() || !f.Analytics || f.AnalyticsURL != "/_lectern/analytics" || c.AnalyticsKey != "" ||
		c.AnalyticsRetention != 30*24*time.Hour || c.AnalyticsAggregateRetention != 730*24*time.Hour {
		t.Fatalf("features %+v, config %+v", f, c)
	}
	if err := c.SiteFeatures().Validate(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	c.Describe(&b, time.Now())
	if out := b.String(); !strings.Contains(out, "analytics.endpoint       selfhost's own, /_lectern/analytics") ||
		!strings.Contains(out, "analytics.apiKey         none  (the read API /v1/analytics/... is off") ||
		!strings.Contains(out, "analytics.retention      30d") || !strings.Contains(out, "analytics.aggregateRetention 730d") {
		t.Errorf("--check:\n%s", out)
	}

	fileKey, envKey := lectern.NewAPIKey(), lectern.NewAPIKey()
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte(fileKey+"\n"), 0o600)
	env := envOf(map[string]string{"LECTERN_ANALYTICS_API_KEY": envKey})
	c, err = LoadConfig(writeConfig(t, base+"analytics: {apiKeyFile: "+keyFile+", retention: 7d, aggregateRetention: 8760h}\n"), env)
	if err != nil {
		t.Fatal(err)
	}
	if c.AnalyticsKey != fileKey || c.AnalyticsRetention != 7*24*time.Hour || c.AnalyticsAggregateRetention != 365*24*time.Hour {
		t.Fatalf("key from the file %v, retentions %s %s", c.AnalyticsKey == fileKey, c.AnalyticsRetention, c.AnalyticsAggregateRetention)
	}
	b.Reset()
	c.Describe(&b, time.Now())
	if out := b.String(); strings.Contains(out, fileKey) || strings.Contains(out, envKey) || !strings.Contains(out, "analytics.apiKey         set") ||
		!strings.Contains(out, "analytics.aggregateRetention 365d") {
		t.Errorf("--check:\n%s", out)
	}
	if c, err = LoadConfig(writeConfig(t, base), env); err != nil || c.AnalyticsKey != envKey {
		t.Fatalf("key from the environment: %v", err)
	}

	badFile := filepath.Join(t.TempDir(), "bad-key")
	os.WriteFile(badFile, []byte("correct-horse-battery-staple-0123456789"), 0o600)
	off := "deployment: {type: client-hosted}\n" + head
	airGapped := "deployment: {type: air-gapped}\n" + head
	endpoint := base + "analytics: {endpoint: \"https://stats.acme.internal/hit\", "
	for _, tc := range []struct {
		name, yaml string
		env        map[string]string
		want       string
	}{
		{"not a Lectern key", base + "analytics: {apiKeyFile: " + badFile + "}\n", nil,
			"analytics.apiKeyFile: " + badFile + " does not hold a Lectern API key: lct_ and 38 letters and digits, as lectern selfhost keygen prints"},
		{"env not a Lectern key", base, map[string]string{"LECTERN_ANALYTICS_API_KEY": "lct_short"}, "LECTERN_ANALYTICS_API_KEY: is not a Lectern API key"},
		{"key file missing", base + "analytics: {apiKeyFile: /nonexistent/key}\n", nil, "analytics.apiKeyFile: open /nonexistent/key"},
		{"bad retention", base + "analytics: {retention: a month}\n", nil, `analytics.retention: "a month" is not a duration`},
		{"short retention", base + "analytics: {retention: 2h}\n", nil, "analytics.retention: 2h is shorter than a day"},
		{"totals shorter", base + "analytics: {retention: 60d, aggregateRetention: 30d}\n", nil, "analytics.aggregateRetention: 30d is shorter than analytics.retention 60d"},
		{"key, analytics off", off + "analytics: {apiKeyFile: " + badFile + "}\n", nil, "analytics.apiKeyFile: is set, but features.analytics is off"},
		{"env key, analytics off", off, map[string]string{"LECTERN_ANALYTICS_API_KEY": envKey}, "LECTERN_ANALYTICS_API_KEY: is set, but features.analytics is off"},
		{"key, air-gapped", airGapped + "analytics: {apiKeyFile: " + badFile + "}\n", nil,
			"analytics.apiKeyFile: is set, but analytics is unavailable for deployment type air-gapped"},
		{"env key, air-gapped", airGapped, map[string]string{"LECTERN_ANALYTICS_API_KEY": envKey},
			"LECTERN_ANALYTICS_API_KEY: is set, but analytics is unavailable for deployment type air-gapped"},
		{"retention, air-gapped", airGapped, map[string]string{"LECTERN_ANALYTICS_RETENTION": "30d"},
			"analytics.retention: is set, but analytics is unavailable for deployment type air-gapped"},
		{"analytics, air-gapped", airGapped + "features: {analytics: true}\n", nil,
			"features.analytics: feature analytics is unavailable for deployment type air-gapped"},
		{"key and endpoint", endpoint + "apiKeyFile: " + keyFile + "}\n", nil, "analytics.apiKeyFile: is set, but so is analytics.endpoint"},
		{"retention and endpoint", endpoint + "aggregateRetention: 90d}\n", nil, "analytics.aggregateRetention: is set, but so is analytics.endpoint"},
	} {
		_, err := LoadConfig(writeConfig(t, tc.yaml), envOf(tc.env))
		if err == nil || lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), envKey) || strings.Contains(err.Error(), "correct-horse")) {
			t.Errorf("%s: the error shows the key: %v", tc.name, err)
		}
	}

	// With an endpoint, analytics go there, as before.
	c, err = LoadConfig(writeConfig(t, endpoint+"}\n"), envOf(nil))
	if err != nil || c.OwnAnalytics() || c.SiteFeatures().AnalyticsURL != "https://stats.acme.internal/hit" {
		t.Fatalf("endpoint: %v %+v", err, c)
	}
}

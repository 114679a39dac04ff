package selfhost

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/secrets"
)

// analyticsKeyEnv holds the key of selfhost's own analytics read API.
const analyticsKeyEnv = "LECTERN_ANALYTICS_API_KEY"

// keyAnalyticsKeyEnv holds LECTERN_ANALYTICS_API_KEY among the values read.
const keyAnalyticsKeyEnv = "analytics.apiKey (env)"

// The retention of selfhost's own analytics by default, as lectern serve's
// --analytics-retention and --analytics-aggregate-retention.
const (
	defaultRetention  = 30 * 24 * time.Hour
	defaultAggregates = 730 * 24 * time.Hour
)

// OwnAnalytics reports whether c has selfhost record the web analytics
// itself: analytics on, and no analytics.endpoint.
func (c *Config) OwnAnalytics() bool {
	return c.Features[lectern.FeatureAnalytics] && c.AnalyticsEndpoint == ""
}

// ownAnalytics checks the keys of selfhost's own analytics (the read API's
// key, the retentions): only with analytics on and no endpoint. The key
// comes from the file analytics.apiKeyFile or the environment variable
// LECTERN_ANALYTICS_API_KEY, never from the YAML file, and must be a
// Lectern API key (what lectern selfhost keygen prints), which the read
// API checks as the Lectern API does.
func ownAnalytics(p *problems, vals map[string]value, c *Config) {
	if !c.OwnAnalytics() {
		for _, k := range []string{KeyAnalyticsKeyFile, keyAnalyticsKeyEnv, KeyRetention, KeyAggregates} {
			if _, set := vals[k]; !set {
				continue
			}
			name := k
			if k == keyAnalyticsKeyEnv {
				name = analyticsKeyEnv
			}
			if a, _ := lectern.FeatureAvailability(c.Type, lectern.FeatureAnalytics); a == lectern.Unavailable {
				p.addf(name, "is set, but analytics is unavailable for deployment type %s: remove it", c.Type)
			} else if !c.Features[lectern.FeatureAnalytics] {
				p.addf(name, "is set, but features.analytics is off: turn the feature on or remove the key")
			} else {
				p.addf(name, "is set, but so is analytics.endpoint: it is for selfhost's own analytics; remove one of them")
			}
		}
		return
	}
	c.AnalyticsRetention = retention(p, vals, KeyRetention, defaultRetention)
	c.AnalyticsAggregateRetention = retention(p, vals, KeyAggregates, defaultAggregates)
	if c.AnalyticsAggregateRetention < c.AnalyticsRetention {
		p.addf(KeyAggregates, "%s is shorter than analytics.retention %s: the daily totals are kept at least as long as the events",
			formatDays(c.AnalyticsAggregateRetention), formatDays(c.AnalyticsRetention))
	}
	const format = "a Lectern API key: lct_ and 38 letters and digits, as lectern selfhost keygen prints"
	if file := vals[KeyAnalyticsKeyFile].str; file != "" {
		k, err := secrets.ReadKeyFile(file)
		switch {
		case err != nil:
			p.addf(KeyAnalyticsKeyFile, "%s", err)
		case lectern.CheckAPIKey(k) != nil:
			p.addf(KeyAnalyticsKeyFile, "%s does not hold %s", file, format)
		default:
			c.AnalyticsKey = k
		}
	} else if k := strings.TrimSpace(vals[keyAnalyticsKeyEnv].str); k != "" {
		if lectern.CheckAPIKey(k) != nil {
			p.addf(analyticsKeyEnv, "is not %s", format)
		} else {
			c.AnalyticsKey = k
		}
	}
}

// retention reads a retention key: a number of days ("30d") or a Go
// duration ("720h"), at least a day; def when unset.
func retention(p *problems, vals map[string]value, key string, def time.Duration) time.Duration {
	v, ok := vals[key]
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v.str)
	if n, found := strings.CutSuffix(v.str, "d"); found {
		var days int
		days, err = strconv.Atoi(n)
		d = time.Duration(min(max(days, 0), 100*366)) * 24 * time.Hour
	}
	switch {
	case err != nil:
		p.addf(key, "%q is not a duration: give days, such as 30d, or hours, such as 720h", v.str)
	case d < 24*time.Hour:
		p.addf(key, "%s is shorter than a day", v.str)
	default:
		return d
	}
	return def
}

// formatDays writes d in days when it is whole days ("30d").
func formatDays(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// describeAnalytics writes --check's lines of selfhost's own analytics,
// through line (key, value, note). The key is never shown.
func (c *Config) describeAnalytics(b *strings.Builder, line func(key, val, note string)) {
	if !c.OwnAnalytics() {
		return
	}
	line(KeyAnalyticsEndpoint, "selfhost's own, "+features.OwnAnalytics, "recorded in the cache folder's "+AnalyticsDB)
	state := "none  (the read API /v1/analytics/... is off: set analytics.apiKeyFile or " + analyticsKeyEnv + ")"
	if c.AnalyticsKey != "" {
		state = "set  (the read API /v1/analytics/{projectId}/... is on)"
	}
	fmt.Fprintf(b, "%-24s %s\n", "analytics.apiKey", state)
	line(KeyRetention, formatDays(c.AnalyticsRetention), "raw events")
	line(KeyAggregates, formatDays(c.AnalyticsAggregateRetention), "daily totals")
}

package selfhost

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"

	"lectern.dev/lectern"
	"lectern.dev/lectern/assistant"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/secrets"
)

// Config is a validated self-hosted deployment configuration.
type Config struct {
	// Type is client-hosted or air-gapped.
	Type lectern.DeploymentType
	// BundleURL is the bundle link (a secret: log it only through
	// RedactLink), or the absolute path of a bundle file carried in (an
	// air-gapped installation's file:// URL or path).
	BundleURL string
	// Version pins the bundle version; "" serves whatever the link holds.
	Version string
	// Features says, for every feature of the table, whether it is on.
	Features map[lectern.Feature]bool
	// AssistantEndpoint is the client's own assistant endpoint, when it
	// has one; with the assistant on and no endpoint, selfhost answers
	// itself, from the bundle (OwnAssistant).
	AssistantEndpoint string
	// AnalyticsEndpoint is the client's own analytics endpoint, when it
	// has one; with analytics on and no endpoint, selfhost records the
	// events itself (OwnAnalytics).
	AnalyticsEndpoint string
	// AnalyticsKey is the key of selfhost's own analytics read API, a
	// Lectern API key (a secret, read from the file analytics.apiKeyFile
	// or LECTERN_ANALYTICS_API_KEY); "" leaves the read API off.
	AnalyticsKey string
	// AnalyticsRetention and AnalyticsAggregateRetention are how long
	// selfhost's own analytics keep raw events and daily totals (set
	// with OwnAnalytics only).
	AnalyticsRetention, AnalyticsAggregateRetention time.Duration
	// LLMURL, LLMModel and LLMKey give selfhost's own assistant a model
	// (an OpenAI-compatible chat-completions API inside the network);
	// empty: answers quote the docs. LLMKey is a secret, read from the
	// file assistant.llmKeyFile or LECTERN_ASSISTANT_LLM_KEY.
	LLMURL, LLMModel, LLMKey string
	// PlaygroundOrigins are the origins the "Try it" form may call
	// (client-hosted only).
	PlaygroundOrigins []string
	// Sources says where each key set by the user came from:
	// "lectern.yaml:4" or "env LECTERN_...".
	Sources map[string]string
	// stamp is the state of a local bundle file when the configuration
	// was applied (bundleStamp).
	stamp string
}

// Configuration keys, as written in the YAML file. Each has an environment
// variable (see EnvName).
const (
	KeyType              = "deployment.type"
	KeyEnabled           = "staticExport.enabled"
	KeyBundleURL         = "staticExport.bundleUrl"
	KeyVersion           = "staticExport.version"
	KeyAssistantEndpoint = "assistant.endpoint"
	KeyLLMURL            = "assistant.llmUrl"
	KeyLLMModel          = "assistant.llmModel"
	KeyLLMKeyFile        = "assistant.llmKeyFile"
	KeyAnalyticsEndpoint = "analytics.endpoint"
	KeyAnalyticsKeyFile  = "analytics.apiKeyFile"
	KeyRetention         = "analytics.retention"
	KeyAggregates        = "analytics.aggregateRetention"
	KeyPlaygroundOrigins = "playground.origins"
)

// featureKey returns the configuration key of feature f.
func featureKey(f lectern.Feature) string { return "features." + string(f) }

// keyKind is the type of a configuration value.
type keyKind int

const (
	kindString keyKind = iota
	kindBool
	kindList // a YAML list of strings; comma-separated in the environment
)

// configKey is one key of the configuration.
type configKey struct {
	name string
	kind keyKind
}

// configKeys lists every key, in the order --check prints them. The
// features come from the root package's table.
func configKeys() []configKey {
	keys := []configKey{{KeyType, kindString}, {KeyEnabled, kindBool}, {KeyBundleURL, kindString}, {KeyVersion, kindString}}
	for _, f := range lectern.Features {
		keys = append(keys, configKey{featureKey(f), kindBool})
	}
	return append(keys, configKey{KeyAssistantEndpoint, kindString}, configKey{KeyLLMURL, kindString}, configKey{KeyLLMModel, kindString},
		configKey{KeyLLMKeyFile, kindString}, configKey{KeyAnalyticsEndpoint, kindString}, configKey{KeyAnalyticsKeyFile, kindString},
		configKey{KeyRetention, kindString}, configKey{KeyAggregates, kindString}, configKey{KeyPlaygroundOrigins, kindList})
}

// EnvName returns the environment variable of a configuration key:
// LECTERN_ and the key in upper snake case ("staticExport.bundleUrl" is
// LECTERN_STATIC_EXPORT_BUNDLE_URL).
func EnvName(key string) string {
	var b strings.Builder
	b.WriteString("LECTERN_")
	prev := rune(0)
	for _, r := range key {
		switch {
		case r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r) && prev != 0 && prev != '.':
			b.WriteByte('_')
			b.WriteRune(r)
		default:
			b.WriteRune(unicode.ToUpper(r))
		}
		prev = r
	}
	return b.String()
}

// value is one key's raw value and where it came from.
type value struct {
	str    string
	boolv  bool
	list   []string
	source string
}

// problems collects what is wrong with a configuration.
type problems []string

func (p *problems) addf(key, format string, args ...any) {
	*p = append(*p, key+": "+fmt.Sprintf(format, args...))
}

// err returns nil, or an EINVALID error listing every problem of the
// configuration from where.
func (p problems) err(where string) error {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return lectern.Errorf(lectern.EINVALID, "configuration %s: %s", where, p[0])
	}
	return lectern.Errorf(lectern.EINVALID, "configuration %s has %d problems:\n  %s", where, len(p), strings.Join(p, "\n  "))
}

// build validates the merged values and returns the configuration, or an
// error listing p and every problem it finds.
func build(file string, vals map[string]value, p problems) (*Config, error) {
	c := &Config{Features: map[lectern.Feature]bool{}, Sources: map[string]string{}}
	for k, v := range vals {
		c.Sources[k] = v.source
	}

	if v, ok := vals[KeyType]; !ok || v.str == "" {
		p.addf(KeyType, "missing: set client-hosted or air-gapped")
	} else {
		switch t := lectern.DeploymentType(v.str); t {
		case lectern.DeploymentClientHosted, lectern.DeploymentAirGapped:
			c.Type = t
		case lectern.DeploymentCloud:
			p.addf(KeyType, "cloud sites are served by lectern serve; selfhost serves client-hosted and air-gapped deployments")
		default:
			p.addf(KeyType, "unknown deployment type %q: use client-hosted or air-gapped", v.str)
		}
	}
	if v, ok := vals[KeyEnabled]; !ok {
		p.addf(KeyEnabled, "missing: selfhost serves the static export bundle, set it to true")
	} else if !v.boolv {
		p.addf(KeyEnabled, "is false, but selfhost only serves a static export bundle: set it to true (and staticExport.bundleUrl)")
	}
	if v, ok := vals[KeyBundleURL]; !ok || v.str == "" {
		p.addf(KeyBundleURL, "missing: set it to the bundleUrl returned by POST /v1/static-export/jobs/{jobId}/bundle")
	} else if path, local, msg := localBundle(v.str); local {
		if msg != "" {
			p.addf(KeyBundleURL, "%s", msg)
		} else {
			c.BundleURL = path
		}
	} else if msg := httpURLProblem(v.str); msg != "" {
		p.addf(KeyBundleURL, "%s", msg)
	} else {
		c.BundleURL = v.str
	}
	if v, ok := vals[KeyVersion]; ok {
		if msg := versionProblem(v.str); msg != "" {
			p.addf(KeyVersion, "%s", msg)
		}
		c.Version = v.str
	}

	if c.Type != "" {
		for _, f := range lectern.Features {
			v, set := vals[featureKey(f)]
			on, err := lectern.FeatureEnabled(c.Type, f, v.boolv, set)
			if err != nil {
				p.addf(featureKey(f), "%s", lectern.ErrorMessage(err))
			}
			c.Features[f] = on
		}
		c.AssistantEndpoint = endpoint(&p, vals, KeyAssistantEndpoint, lectern.FeatureAssistant, c)
		assistantModel(&p, vals, c)
		c.AnalyticsEndpoint = endpoint(&p, vals, KeyAnalyticsEndpoint, lectern.FeatureAnalytics, c)
		ownAnalytics(&p, vals, c)
		c.PlaygroundOrigins = origins(&p, vals, c)
	}
	if err := p.err(ConfigOrigin(file)); err != nil {
		return nil, err
	}
	return c, nil
}

// endpoint checks the endpoint key of feature f: an http(s) URL when f is
// on (unset, selfhost's own assistant or analytics serve it); refused
// when f is off.
func endpoint(p *problems, vals map[string]value, key string, f lectern.Feature, c *Config) string {
	v, ok := vals[key]
	set := ok && v.str != ""
	switch on := c.Features[f]; {
	case on && !set:
		return "" // selfhost's own assistant or analytics
	case !on && set:
		if a, _ := lectern.FeatureAvailability(c.Type, f); a == lectern.Unavailable {
			p.addf(key, "is set, but %s is unavailable for deployment type %s: remove it", f, c.Type)
		} else {
			p.addf(key, "is set, but features.%s is off: turn the feature on or remove the key", f)
		}
	case on:
		if msg := httpURLProblem(v.str); msg != "" {
			p.addf(key, "%s", msg)
			return ""
		}
		return v.str
	}
	return ""
}

// assistantModel checks the model of selfhost's own assistant: URL and
// model together, only with the assistant on and answered by selfhost.
// The key comes from the file assistant.llmKeyFile, or the environment
// variable LECTERN_ASSISTANT_LLM_KEY (never from the YAML file, which is
// often readable by others).
func assistantModel(p *problems, vals map[string]value, c *Config) {
	url, model, keyFile := vals[KeyLLMURL].str, vals[KeyLLMModel].str, vals[KeyLLMKeyFile].str
	if url == "" && model == "" && keyFile == "" {
		return
	}
	key := KeyLLMURL
	if url == "" {
		key = KeyLLMModel
		if model == "" {
			key = KeyLLMKeyFile
		}
	}
	switch {
	case !c.Features[lectern.FeatureAssistant]:
		if a, _ := lectern.FeatureAvailability(c.Type, lectern.FeatureAssistant); a == lectern.Unavailable {
			p.addf(key, "is set, but the assistant is unavailable for deployment type %s: remove it", c.Type)
		} else {
			p.addf(key, "is set, but features.assistant is off: turn the feature on or remove the key")
		}
		return
	case c.AssistantEndpoint != "":
		p.addf(key, "is set, but so is assistant.endpoint: the model is for selfhost's own assistant; remove one of them")
		return
	case url == "":
		p.addf(KeyLLMURL, "missing: %s needs the URL of an OpenAI-compatible API, such as http://vllm.internal:8000/v1", key)
		return
	case model == "":
		p.addf(KeyLLMModel, "missing: assistant.llmUrl needs the name of the model that writes the answers")
		return
	}
	if _, err := assistant.ParseModelURL(url); err != nil {
		p.addf(KeyLLMURL, "%s", err)
		return
	}
	c.LLMURL, c.LLMModel = url, model
	if keyFile != "" {
		k, err := secrets.ReadKeyFile(keyFile)
		if err != nil {
			p.addf(KeyLLMKeyFile, "%s", err)
			return
		}
		c.LLMKey = k
	} else if k := strings.TrimSpace(vals[keyLLMKeyEnv].str); strings.ContainsFunc(k, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		p.addf(KeyLLMKeyFile, "%s must hold the key alone, without spaces or control characters", assistantKeyEnv)
	} else {
		c.LLMKey = k
	}
}

// keyLLMKeyEnv holds LECTERN_ASSISTANT_LLM_KEY among the values read.
const keyLLMKeyEnv = "assistant.llmKey (env)"

// origins checks playground.origins: http(s) origins, only with the
// playground on, never in air-gapped (whose pages reach no other host).
func origins(p *problems, vals map[string]value, c *Config) []string {
	v, ok := vals[KeyPlaygroundOrigins]
	if !ok || len(v.list) == 0 {
		return nil
	}
	switch {
	case c.Type == lectern.DeploymentAirGapped:
		p.addf(KeyPlaygroundOrigins, "is set, but an air-gapped site makes no request to any other host: remove it (the playground can call the site's own origin)")
		return nil
	case !c.Features[lectern.FeaturePlayground]:
		p.addf(KeyPlaygroundOrigins, "is set, but features.playground is off: turn the feature on or remove the key")
		return nil
	}
	var out []string
	for _, o := range v.list {
		u, err := url.Parse(o)
		if msg := httpURLProblem(o); msg != "" || err != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			p.addf(KeyPlaygroundOrigins, "%q is not an origin: use scheme://host[:port], such as https://api.acme.internal", o)
			continue
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	return out
}

// ConfigOrigin names, in messages, where a configuration read from file
// ("" for the environment only) came from.
func ConfigOrigin(file string) string {
	if file == "" {
		return "from the environment"
	}
	return file
}

// httpURLProblem says why s is not an absolute http or https URL with a
// host, or returns "". The message never repeats s, which may hold a
// signature.
func httpURLProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "is not a valid URL"
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return "is not an absolute URL: it must start with http:// or https://"
		}
		return fmt.Sprintf("scheme %q is not supported: the URL must start with http:// or https://", u.Scheme)
	case u.Host == "":
		return "has no host"
	}
	return ""
}

// versionProblem says why s cannot be a version pin, or returns "".
func versionProblem(s string) string {
	switch {
	case s == "":
		return "is empty: remove the key to serve whatever version the link holds"
	case len(s) > 200:
		return "is longer than 200 characters"
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return "contains a space or a control character"
		}
	}
	return ""
}

// Describe writes the effective settings, one "key value (source)" line
// each, for lectern selfhost --check. The bundle link is redacted, and its
// expiry shown when the link states it.
func (c *Config) Describe(w io.Writer, now time.Time) error {
	var b strings.Builder
	line := func(key, val, note string) {
		if src, ok := c.Sources[key]; ok && note != "" {
			note += "; " + src
		} else if ok {
			note = src
		}
		if note != "" {
			note = "  (" + note + ")"
		}
		fmt.Fprintf(&b, "%-24s %s%s\n", key, val, note)
	}
	line(KeyType, string(c.Type), "")
	line(KeyEnabled, "true", "")
	line(KeyBundleURL, RedactLink(c.BundleURL), "")
	if exp, ok := LinkExpiry(c.BundleURL); ok {
		state := "expires"
		if !exp.After(now) {
			state = "EXPIRED"
		}
		fmt.Fprintf(&b, "%-24s %s %s\n", "", state, exp.UTC().Format(time.RFC3339))
	}
	if c.Version == "" {
		line(KeyVersion, "not pinned", "serves the version the link holds")
	} else {
		line(KeyVersion, c.Version, "")
	}
	for _, f := range lectern.Features {
		a, _ := lectern.FeatureAvailability(c.Type, f)
		state := "off"
		if c.Features[f] {
			state = "on"
		}
		line(featureKey(f), state, string(a)+" for "+string(c.Type))
	}
	if c.Features[lectern.FeatureAssistant] && c.AssistantEndpoint == "" {
		how := "quotes the docs"
		if c.LLMURL != "" {
			how = "a model writes the answers"
		}
		line(KeyAssistantEndpoint, "selfhost's own, "+features.OwnAssistant, how)
	}
	c.describeAnalytics(&b, line)
	for _, e := range []struct{ key, val string }{{KeyAssistantEndpoint, c.AssistantEndpoint}, {KeyLLMURL, c.LLMURL}, {KeyLLMModel, c.LLMModel},
		{KeyAnalyticsEndpoint, c.AnalyticsEndpoint}} {
		if e.val != "" {
			line(e.key, lectern.RedactURL(e.val), "")
		}
	}
	if c.LLMURL != "" {
		state := "none"
		if c.LLMKey != "" {
			state = "set"
		}
		fmt.Fprintf(&b, "%-24s %s\n", "assistant.llmKey", state)
	}
	if len(c.PlaygroundOrigins) > 0 {
		line(KeyPlaygroundOrigins, strings.Join(c.PlaygroundOrigins, ", "), "")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package selfhost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

const link = "https://bundles.acme.test/_lectern/download/exports/exp_1/docs.tar.gz?expires=1700000000&nonce=n0nce&signature=s3cr3tsig"

func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "lectern.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestLoadConfigClientHosted(t *testing.T) {
	t.Parallel()
	p := writeConfig(t, `
deployment: {type: client-hosted}
staticExport: {enabled: true, bundleUrl: "`+link+`", version: "abc123-exp_1"}
features: {search: true, assistant: true, analytics: false, playground: true}
assistant: {endpoint: "https://assistant.acme.internal/ask"}
`)
	c, err := LoadConfig(p, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := map[lectern.Feature]bool{lectern.FeatureSearch: true, lectern.FeatureAssistant: true, lectern.FeatureAnalytics: false,
		lectern.FeaturePlayground: true, lectern.FeatureStaticExport: true}
	for f, on := range want {
		if c.Features[f] != on {
			t.Errorf("feature %s = %v, want %v", f, c.Features[f], on)
		}
	}
	if c.Type != lectern.DeploymentClientHosted || c.BundleURL != link || c.Version != "abc123-exp_1" ||
		c.AssistantEndpoint != "https://assistant.acme.internal/ask" || c.AnalyticsEndpoint != "" {
		t.Fatalf("config %+v", c)
	}
	if c.Sources[KeyVersion] != p+":3" || c.Sources[featureKey(lectern.FeatureSearch)] != p+":4" {
		t.Errorf("sources %v", c.Sources)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	// Features not mentioned: configurable ones off, available ones on.
	c, err := LoadConfig(writeConfig(t, "deployment:\n  type: air-gapped\nstaticExport:\n  enabled: true\n  bundleUrl: http://10.0.0.5/b.tar.gz\n"), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	for f, on := range c.Features {
		if want := f == lectern.FeatureStaticExport; on != want {
			t.Errorf("air-gapped %s = %v, want %v", f, on, want)
		}
	}
	if c.Version != "" {
		t.Errorf("version %q", c.Version)
	}
}

func TestLoadConfigEnvironment(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"LECTERN_DEPLOYMENT_TYPE":          "client-hosted",
		"LECTERN_STATIC_EXPORT_ENABLED":    "true",
		"LECTERN_STATIC_EXPORT_BUNDLE_URL": link,
		"LECTERN_FEATURES_SEARCH":          "yes",
		"LECTERN_FEATURES_ANALYTICS":       "true",
		"LECTERN_ANALYTICS_ENDPOINT":       "https://stats.acme.internal/hit",
		"LECTERN_PLAYGROUND_ORIGINS":       "https://api.acme.internal, http://10.0.0.9:8080/",
	})
	// Without a file.
	c, err := LoadConfig("", env)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Features[lectern.FeatureSearch] || !c.Features[lectern.FeatureAnalytics] || c.AnalyticsEndpoint == "" ||
		c.Sources[KeyBundleURL] != "env LECTERN_STATIC_EXPORT_BUNDLE_URL" ||
		strings.Join(c.PlaygroundOrigins, " ") != "https://api.acme.internal http://10.0.0.9:8080" {
		t.Fatalf("config %+v", c)
	}
	// The environment wins over the file.
	c, err = LoadConfig(writeConfig(t, "deployment: {type: air-gapped}\nfeatures: {search: false}\n"), env)
	if err != nil {
		t.Fatal(err)
	}
	if c.Type != lectern.DeploymentClientHosted || !c.Features[lectern.FeatureSearch] {
		t.Fatalf("environment did not win: %+v", c)
	}
}

func TestEnvName(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		KeyBundleURL: "LECTERN_STATIC_EXPORT_BUNDLE_URL", KeyType: "LECTERN_DEPLOYMENT_TYPE",
		"features.staticExport": "LECTERN_FEATURES_STATIC_EXPORT", KeyAssistantEndpoint: "LECTERN_ASSISTANT_ENDPOINT",
	} {
		if got := EnvName(key); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", key, got, want)
		}
	}
}

// Every refused configuration names the key and the reason, and never the
// link's signature.
func TestLoadConfigRefused(t *testing.T) {
	t.Parallel()
	const ok = "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\n"
	cases := []struct {
		name, yaml string
		env        map[string]string
		want       []string
	}{
		{"not YAML", "deployment: [client-hosted\n", nil, []string{"is not valid YAML", "line"}},
		{"binary", "\x00\x01\x02garbage", nil, []string{"not valid YAML"}},
		{"a list", "- a\n- b\n", nil, []string{"must be a YAML mapping"}},
		{"two documents", ok + "---\n" + ok, nil, []string{"one YAML document"}},
		{"unknown top key", ok + "feature: {search: true}\n", nil, []string{`feature: unknown key (line 3): did you mean "features"?`}},
		{"unknown nested key", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleURL: x}\n", nil,
			[]string{`staticExport.bundleURL: unknown key (line 2): did you mean "staticExport.bundleUrl"?`, "staticExport.bundleUrl: missing"}},
		{"unknown key lists siblings", ok + "server: {port: 1}\n", nil, []string{"the keys at the top level are analytics, assistant, deployment, features, playground, staticExport"}},
		{"unknown feature", ok + "features: {chat: true}\n", nil, []string{"features.chat: unknown key", "analytics, assistant, playground, search, staticExport"}},
		{"wrong bool", "deployment: {type: client-hosted}\nstaticExport: {enabled: maybe, bundleUrl: x}\n", nil, []string{`staticExport.enabled: "maybe" is not a boolean`}},
		{"section not mapping", ok + "features: true\n", nil, []string{"features: must be a mapping"}},
		{"list value", ok + "features: {search: [true]}\n", nil, []string{"features.search: must be a single value"}},
		{"duplicate", ok + "features:\n  search: true\n  search: false\n", nil, []string{"features.search: given twice (lines 4 and 5)"}},
		{"missing everything", "", nil, []string{"deployment.type: missing", "staticExport.enabled: missing", "staticExport.bundleUrl: missing", "3 problems"}},
		{"cloud", "deployment: {type: cloud}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\n", nil, []string{"deployment.type: cloud sites are served by lectern serve"}},
		{"unknown type", "deployment: {type: on-prem}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\n", nil, []string{`unknown deployment type "on-prem"`}},
		{"disabled export", "deployment: {type: client-hosted}\nstaticExport: {enabled: false, bundleUrl: \"" + link + "\"}\n", nil, []string{"staticExport.enabled: is false"}},
		{"ftp link", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"ftp://h/b.tar.gz?signature=s3cr3tsig\"}\n", nil, []string{`staticExport.bundleUrl: scheme "ftp" is not supported`}},
		{"file on another host", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"file://h/b.tar.gz\"}\n", nil, []string{`only local files (file:///path)`}},
		{"empty version", ok + "staticExport: {version: \"\"}\n", nil, []string{"staticExport: given twice"}},
		{"empty version pin", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\", version: \"\"}\n", nil, []string{"staticExport.version: is empty"}},
		{"spaced version", "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\", version: \"a b\"}\n", nil, []string{"staticExport.version: contains a space"}},
		{"air-gapped search", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\nfeatures: {search: true}\n", nil,
			[]string{"features.search: feature search is unavailable for deployment type air-gapped"}},
		{"air-gapped assistant from env", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\n",
			map[string]string{"LECTERN_FEATURES_ASSISTANT": "true"}, []string{"features.assistant: feature assistant is unavailable for deployment type air-gapped"}},
		{"available turned off", ok + "features: {playground: false}\n", nil, []string{"features.playground: feature playground is always available for deployment type client-hosted"}},
		{"model without assistant", ok + "assistant: {llmUrl: \"http://vllm.internal/v1\", llmModel: m}\n", nil, []string{"assistant.llmUrl: is set, but features.assistant is off"}},
		{"model air-gapped", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\nassistant: {llmModel: m}\n", nil,
			[]string{"assistant.llmModel: is set, but the assistant is unavailable for deployment type air-gapped"}},
		{"model and endpoint", ok + "features: {assistant: true}\nassistant: {endpoint: \"https://ai/ask\", llmUrl: \"http://vllm/v1\", llmModel: m}\n", nil,
			[]string{"assistant.llmUrl: is set, but so is assistant.endpoint"}},
		{"model without name", ok + "features: {assistant: true}\nassistant: {llmUrl: \"http://vllm/v1\"}\n", nil, []string{"assistant.llmModel: missing"}},
		{"model without URL", ok + "features: {assistant: true}\nassistant: {llmModel: m}\n", nil, []string{"assistant.llmUrl: missing"}},
		{"model URL with password", ok + "features: {assistant: true}\nassistant: {llmUrl: \"http://u:s3cr3tsig@vllm/v1\", llmModel: m}\n", nil, []string{"assistant.llmUrl: must not hold a user or password"}},
		{"model key file missing", ok + "features: {assistant: true}\nassistant: {llmUrl: \"http://vllm/v1\", llmModel: m, llmKeyFile: /nonexistent/key}\n", nil, []string{"assistant.llmKeyFile: open /nonexistent/key"}},
		{"endpoint without feature", ok + "analytics: {endpoint: \"https://stats\"}\n", nil, []string{"analytics.endpoint: is set, but features.analytics is off"}},
		{"endpoint air-gapped", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\nanalytics: {endpoint: \"https://stats\"}\n", nil,
			[]string{"analytics.endpoint: is set, but analytics is unavailable for deployment type air-gapped"}},
		{"endpoint not http", ok + "features: {assistant: true}\nassistant: {endpoint: \"ws://x\"}\n", nil, []string{"assistant.endpoint: scheme \"ws\" is not supported"}},
		{"origins air-gapped", "deployment: {type: air-gapped}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\nfeatures: {playground: true}\nplayground: {origins: [\"https://api.acme.internal\"]}\n", nil,
			[]string{"playground.origins: is set, but an air-gapped site makes no request to any other host"}},
		{"origins not a list", ok + "playground: {origins: https://api}\n", nil, []string{"playground.origins: must be a list (line 3)"}},
		{"origin with path", ok + "playground: {origins: [\"https://api/v1\"]}\n", nil, []string{`playground.origins: "https://api/v1" is not an origin`}},
		{"bad env bool", ok, map[string]string{"LECTERN_FEATURES_SEARCH": "sometimes"}, []string{`features.search (environment variable LECTERN_FEATURES_SEARCH): "sometimes" is not a boolean`}},
		{"bad env link", ok, map[string]string{"LECTERN_STATIC_EXPORT_BUNDLE_URL": "file:///etc/passwd?signature=s3cr3tsig"}, []string{`staticExport.bundleUrl: must be a file:// URL of an absolute path`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadConfig(writeConfig(t, tc.yaml), envOf(tc.env))
			if err == nil {
				t.Fatal("accepted")
			}
			if lectern.ErrorCode(err) != lectern.EINVALID {
				t.Errorf("code %q", lectern.ErrorCode(err))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "s3cr3tsig") {
				t.Errorf("error repeats the signature: %q", err)
			}
		})
	}
}

// TestOwnAssistantConfig: the assistant on without an endpoint is
// selfhost's own, extractive or with a model whose key comes from a file
// or the environment, never shown by --check.
func TestOwnAssistantConfig(t *testing.T) {
	t.Parallel()
	base := "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \"" + link + "\"}\nfeatures: {assistant: true}\n"
	c, err := LoadConfig(writeConfig(t, base), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if f := c.SiteFeatures(); !f.Assistant || f.AssistantURL != "/_lectern/assistant" || c.LLMURL != "" {
		t.Fatalf("features %+v, model %q", f, c.LLMURL)
	}
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("sk-from-file\n"), 0o600)
	c, err = LoadConfig(writeConfig(t, base+"assistant: {llmUrl: \"http://vllm.internal:8000/v1\", llmModel: docs, llmKeyFile: "+keyFile+"}\n"),
		envOf(map[string]string{"LECTERN_ASSISTANT_LLM_KEY": "sk-from-env"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMURL != "http://vllm.internal:8000/v1" || c.LLMModel != "docs" || c.LLMKey != "sk-from-file" {
		t.Fatalf("model %q %q key %q", c.LLMURL, c.LLMModel, c.LLMKey)
	}
	c, err = LoadConfig(writeConfig(t, base+"assistant: {llmUrl: \"http://vllm.internal:8000/v1\", llmModel: docs}\n"),
		envOf(map[string]string{"LECTERN_ASSISTANT_LLM_KEY": "sk-from-env"}))
	if err != nil || c.LLMKey != "sk-from-env" {
		t.Fatalf("key from env: %v %q", err, c.LLMKey)
	}
	var b strings.Builder
	c.Describe(&b, time.Now())
	if out := b.String(); strings.Contains(out, "sk-from") || !strings.Contains(out, "assistant.llmKey         set") ||
		!strings.Contains(out, "selfhost's own, /_lectern/assistant") {
		t.Errorf("--check:\n%s", out)
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	t.Parallel()
	_, err := LoadConfig(filepath.Join(t.TempDir(), "nope.yaml"), envOf(nil))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") || lectern.ErrorCode(err) != lectern.EINVALID {
		t.Fatalf("err %v", err)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	p := writeConfig(t, "deployment: {type: client-hosted}\nstaticExport: {enabled: true, bundleUrl: \""+link+"\"}\nfeatures: {search: true}\n")
	c, err := LoadConfig(p, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.Describe(&b, time.Unix(1800000000, 0)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"deployment.type          client-hosted  (" + p + ":1)",
		"staticExport.bundleUrl   https://bundles.acme.test/_lectern/download/exports/exp_1/docs.tar.gz?***",
		"EXPIRED 2023-11-14T22:13:20Z",
		"staticExport.version     not pinned",
		"features.search          on  (configurable for client-hosted; " + p + ":3)",
		"features.assistant       off  (configurable for client-hosted)",
		"features.playground      on  (available for client-hosted)",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("--check output lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "s3cr3tsig") || strings.Contains(out, "n0nce") {
		t.Errorf("output shows the query string:\n%s", out)
	}
}

func TestLinkExpiry(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		link: "2023-11-14T22:13:20Z",
		"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20250314T090000Z&X-Amz-Expires=3600&X-Amz-Signature=x": "2025-03-14T10:00:00Z",
		"https://storage.googleapis.com/b/k?X-Goog-Date=20250314T090000Z&X-Goog-Expires=60&X-Goog-Signature=x":                           "2025-03-14T09:01:00Z",
		"https://a.blob.core.windows.net/c/k?se=2025-03-14T09%3A00%3A00Z&sig=x":                                                          "2025-03-14T09:00:00Z",
		"https://d.cloudfront.net/k?Expires=1700000000&Signature=x":                                                                      "2023-11-14T22:13:20Z",
		"https://example.test/bundle.tar.gz":                                                                                             "",
		"https://example.test/b?expires=soon":                                                                                            "",
	}
	for in, want := range cases {
		got, ok := LinkExpiry(in)
		if s := got.Format(time.RFC3339); (want == "") == ok || ok && s != want {
			t.Errorf("LinkExpiry(%s) = %s %v, want %q", RedactLink(in), s, ok, want)
		}
	}
}

func TestRedactLink(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		link:                                 "https://bundles.acme.test/_lectern/download/exports/exp_1/docs.tar.gz?***",
		"https://u:pw@h/b.tar.gz":            "https://u:***@h/b.tar.gz",
		"https://h/b.tar.gz#frag":            "https://h/b.tar.gz",
		"http://h/b.tar.gz":                  "http://h/b.tar.gz",
		"https://h/b.tar.gz?X-Amz-Signature": "https://h/b.tar.gz?***",
	} {
		if got := RedactLink(in); got != want {
			t.Errorf("RedactLink(%q) = %q, want %q", in, got, want)
		}
	}
}

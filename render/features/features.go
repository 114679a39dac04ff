package features

import (
	"bytes"
	"html"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"lectern.dev/lectern"
)

// Site features.
//
// The optional features of a site (search, AI assistant, web analytics,
// "Try it" playground) are chosen twice: the build includes the markup of
// the features in Options.Features, and a site that is served later (the
// export bundle in a self-hosted deployment) keeps only those of its
// configuration with Site.Transform. For that, every piece of a
// feature's markup is written between two markers:
//
//	HTML pages:          <!--lectern:NAME--> ... <!--/lectern:NAME-->
//	_lectern/*.css, *.js: /*lectern:NAME*/ ... /*/lectern:NAME*/
//
// NAME is the feature's name in the feature table (lectern.FeatureSearch
// "search", "assistant", "analytics", "playground"). Regions never nest.
// Marker-like comments in page content are neutralised by the build
// (neutralizeMarkers), so only the build's own markers are found.
// The files that serve one feature only (the search index, search.js,
// assistant.js, analytics.js, playground.js) are dropped when it is off.

// Site are the optional features of a rendered site.
type Site struct {
	// Search: the search box, the search dialog, _lectern/search.js and
	// the search index.
	Search bool
	// Assistant: the "Ask AI" button and panel (_lectern/assistant.js),
	// which POST the conversation, {"messages": [{"role": "user",
	// "content": "..."}]}, as JSON to AssistantURL and show the answer it
	// streams (text/event-stream: "text", "citation" and "done" events,
	// package assistant), or the {"answer": "...", "sources": [{"title",
	// "url"}]} JSON of an endpoint that does not stream.
	Assistant bool
	// AssistantURL is the endpoint the assistant widget POSTs questions
	// to: an absolute http(s) URL, or OwnAssistant (the site's own
	// assistant, served by lectern serve and lectern selfhost); required
	// when Assistant is on.
	AssistantURL string
	// Analytics: a page view beacon (_lectern/analytics.js) that sends
	// {"path", "referrer", "title", "ts"} as JSON text to AnalyticsURL on
	// each page load, with navigator.sendBeacon.
	Analytics bool
	// AnalyticsURL is the endpoint page views are sent to: an absolute
	// http(s) URL, required when Analytics is on.
	AnalyticsURL string
	// Playground: the "Try it" form of OpenAPI operation pages and
	// _lectern/playground.js.
	Playground bool
	// PlaygroundOrigins are the origins (scheme://host[:port]) the "Try
	// it" form may send requests to, added to the CSP's connect-src when
	// Playground is on. Empty: the form can reach only the site's own
	// origin under ContentSecurityPolicy. PlaygroundServerOrigins reads
	// those of the servers a built page offers.
	PlaygroundOrigins []string
	// EmbedHosts are the hosts (lower-case names, such as
	// "www.youtube.com") whose https <iframe>s the pages of a live site
	// show (ParseEmbedHosts reads the operator's list); the CSP's
	// frame-src allows exactly them. Others, and every one in an export,
	// become a link to the media (render/components). Empty: none.
	EmbedHosts []string
}

// Default are the features of a build whose Options.Features
// is nil: search and the playground.
func Default() Site {
	return Site{Search: true, Playground: true}
}

// Live are the features of a live site of a project of deployment type
// t, as lectern serve builds and serves it: search and the playground;
// cloud projects' sites the AI assistant and web analytics too, answered
// on the site's own origin (OwnAssistant, OwnAnalytics).
func Live(t lectern.DeploymentType) Site {
	f := Default()
	if t == lectern.DeploymentCloud {
		f.Assistant, f.AssistantURL = true, OwnAssistant
		f.Analytics, f.AnalyticsURL = true, OwnAnalytics
	}
	return f
}

// All has every optional feature on, without endpoints: the
// export bundle is built with it, marked, and the self-hosted runtime
// keeps those of its configuration (Transform).
func All() Site {
	return Site{Search: true, Assistant: true, Analytics: true, Playground: true}
}

// Names are the features with markup, in the table's order.
var Names = []lectern.Feature{lectern.FeatureSearch, lectern.FeatureAssistant, lectern.FeatureAnalytics, lectern.FeaturePlayground}

// Enabled reports whether feature name is on.
func (f Site) Enabled(name lectern.Feature) bool {
	switch name {
	case lectern.FeatureSearch:
		return f.Search
	case lectern.FeatureAssistant:
		return f.Assistant
	case lectern.FeatureAnalytics:
		return f.Analytics
	case lectern.FeaturePlayground:
		return f.Playground
	}
	return false
}

// Files of the site that serve one feature only. The scripts are
// Lectern's own assets, written under their names with a content hash
// (AssetName).
const (
	// SearchDir holds the search index (render/search).
	SearchDir        = "_lectern/search/"
	SearchJSFile     = "_lectern/search.js"
	AssistantJSFile  = "_lectern/assistant.js"
	AnalyticsJSFile  = "_lectern/analytics.js"
	PlaygroundJSFile = "_lectern/playground.js"
)

// Files are the files that serve one feature only, by their names without
// a content hash (AssetBase), and the feature of each.
var Files = map[string]lectern.Feature{
	SearchJSFile:     lectern.FeatureSearch,
	AssistantJSFile:  lectern.FeatureAssistant,
	AnalyticsJSFile:  lectern.FeatureAnalytics,
	PlaygroundJSFile: lectern.FeaturePlayground,
}

// FileFeature returns the feature that the site file name (a clean slash
// path) serves alone, if any: those of Files, and the search index's files
// under SearchDir, whether or not its name carries a content hash
// (AssetName).
func FileFeature(name string) (lectern.Feature, bool) {
	if strings.HasPrefix(name, SearchDir) {
		return lectern.FeatureSearch, true
	}
	feat, ok := Files[AssetBase(name)]
	return feat, ok
}

// OwnAssistant is the AssistantURL of the site's own assistant: the path
// where lectern serve and lectern selfhost answer on the site's origin.
const OwnAssistant = "/_lectern/assistant"

// OwnAnalytics is the AnalyticsURL of the site's own analytics: the path
// where lectern serve (and lectern selfhost) take the pages' events.
const OwnAnalytics = "/_lectern/analytics"

// Meta elements that carry the configured endpoints, in the assistant's
// and the analytics' head regions.
const (
	AssistantMetaName = "lectern-assistant-url"
	AnalyticsMetaName = "lectern-analytics-url"
)

func BeginMarker(f lectern.Feature) string    { return "<!--lectern:" + string(f) + "-->" }
func EndMarker(f lectern.Feature) string      { return "<!--/lectern:" + string(f) + "-->" }
func CSSBeginMarker(f lectern.Feature) string { return "/*lectern:" + string(f) + "*/" }
func CSSEndMarker(f lectern.Feature) string   { return "/*/lectern:" + string(f) + "*/" }

// NeutralizeMarkers makes marker-like comments of page content inert
// ("<!--lectern:" becomes "<!-- lectern:"), so that Transform finds only
// the markers the build writes around the features' markup.
func NeutralizeMarkers(s string) string {
	if !strings.Contains(s, "<!--lectern:") && !strings.Contains(s, "<!--/lectern:") {
		return s
	}
	return strings.NewReplacer("<!--lectern:", "<!-- lectern:", "<!--/lectern:", "<!-- /lectern:").Replace(s)
}

// Validate checks the endpoints of the features that are on: AssistantURL
// and AnalyticsURL are required with their feature and must be absolute
// http(s) URLs; PlaygroundOrigins must be http(s) origins. It returns a
// *lectern.Error of code EINVALID naming the setting.
func (f Site) Validate() error {
	if f.Assistant && f.AssistantURL != OwnAssistant {
		if _, err := endpointOrigin("AssistantURL", f.AssistantURL); err != nil {
			return err
		}
	}
	if f.Analytics && f.AnalyticsURL != OwnAnalytics {
		if _, err := endpointOrigin("AnalyticsURL", f.AnalyticsURL); err != nil {
			return err
		}
	}
	if f.Playground {
		for _, o := range f.PlaygroundOrigins {
			if _, err := endpointOrigin("PlaygroundOrigins", o); err != nil {
				return err
			}
		}
	}
	return validEmbedHosts(f.EmbedHosts)
}

// validOrigin matches what endpointOrigin lets into a CSP header.
var validOrigin = regexp.MustCompile(`^https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$`)

// endpointOrigin checks that raw is an absolute http(s) URL and returns
// its origin ("https://host:port").
func endpointOrigin(setting, raw string) (string, error) {
	if strings.TrimSpace(raw) == "" {
		return "", lectern.Errorf(lectern.EINVALID, "%s is required: the feature is on", setting)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", lectern.Errorf(lectern.EINVALID, "%s %q is not a valid URL: %v", setting, raw, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", lectern.Errorf(lectern.EINVALID, "%s %q must be an http or https URL", setting, raw)
	}
	if u.Host == "" || u.User != nil {
		return "", lectern.Errorf(lectern.EINVALID, "%s %q must be an absolute http(s) URL with a host and no user information", setting, raw)
	}
	origin := scheme + "://" + strings.ToLower(u.Host)
	if !validOrigin.MatchString(origin) {
		return "", lectern.Errorf(lectern.EINVALID, "%s %q has an invalid host", setting, raw)
	}
	return origin, nil
}

// Transform returns the file named name (a slash path in the site, e.g.
// "guides/x.html", "_lectern/search/meta.js") as it must be served with
// these features: content with disabled features removed and enabled ones
// configured, or keep false when the file must not be served at all (the
// search index and search.js when search is off, assistant.js,
// analytics.js and playground.js when their feature is off).
//
// In HTML files (.html, .htm) the regions of features that are off are
// removed with their markers, and only the markers of those that are on,
// whose endpoint (AssistantURL, AnalyticsURL) is written, HTML-escaped,
// into the region's <meta name="lectern-assistant-url"> or
// <meta name="lectern-analytics-url">. Stylesheets and scripts under
// _lectern/ are treated the same with their comment markers (a script's
// part that serves another feature, such as analytics.js's report of
// searches). Other files are returned as they are. A marker without its end is left alone.
//
// It fails, with a *lectern.Error of code EINVALID, when Validate does.
// It is pure and deterministic; data is not modified (out may share it
// when nothing changes).
func (f Site) Transform(name string, data []byte) (out []byte, keep bool, err error) {
	if err := f.Validate(); err != nil {
		return nil, false, err
	}
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if feat, ok := FileFeature(name); ok && !f.Enabled(feat) {
		return nil, false, nil
	}
	switch ext := strings.ToLower(path.Ext(name)); {
	case ext == ".html" || ext == ".htm":
		return f.transformHTML(data), true, nil
	case (ext == ".css" || ext == ".js") && strings.HasPrefix(name, "_lectern/"):
		return f.TransformRegions(data, CSSBeginMarker, CSSEndMarker, false, nil), true, nil
	}
	return data, true, nil
}

func (f Site) transformHTML(data []byte) []byte {
	if bytes.Contains(data, []byte(cspMetaStart)) {
		// An export page's policy (MetaContentSecurityPolicy) becomes this site's.
		meta := []byte(CSPMetaTag(f.MetaContentSecurityPolicy()))
		data = cspMetaRE.ReplaceAllLiteral(data, meta)
	}
	if !bytes.Contains(data, []byte("lectern:")) {
		return data
	}
	return f.TransformRegions(data, BeginMarker, EndMarker, false, func(feat lectern.Feature, region []byte) []byte {
		switch feat {
		case lectern.FeatureAssistant:
			return setMeta(region, AssistantMetaName, f.AssistantURL)
		case lectern.FeatureAnalytics:
			return setMeta(region, AnalyticsMetaName, f.AnalyticsURL)
		}
		return region
	})
}

// TransformRegions removes the regions of the features that are off and
// the markers of those that are on (unless keepMarkers), passing the
// content of each kept region through configure when it is not nil.
func (f Site) TransformRegions(data []byte, begin, end func(lectern.Feature) string, keepMarkers bool, configure func(lectern.Feature, []byte) []byte) []byte {
	out := data
	for _, feat := range Names {
		b, e := []byte(begin(feat)), []byte(end(feat))
		if !bytes.Contains(out, b) {
			continue
		}
		on := f.Enabled(feat)
		var buf bytes.Buffer
		buf.Grow(len(out))
		rest := out
		for {
			i := bytes.Index(rest, b)
			if i < 0 {
				break
			}
			j := bytes.Index(rest[i+len(b):], e)
			if j < 0 {
				break // a marker without its end: left alone
			}
			j += i + len(b)
			region := rest[i+len(b) : j]
			after := rest[j+len(e):]
			buf.Write(rest[:i])
			if on {
				if configure != nil {
					region = configure(feat, region)
				}
				if keepMarkers {
					buf.Write(b)
					buf.Write(region)
					buf.Write(e)
				} else {
					// A marker on a line of its own goes with its line.
					endIndent, endOwnLine := lineIndent(region)
					endOwnLine = endOwnLine && bytes.IndexByte(region, '\n') >= 0 && len(after) > 0 && after[0] == '\n'
					if n, ok := lineIndent(buf.Bytes()); ok && len(region) > 0 && region[0] == '\n' {
						buf.Truncate(buf.Len() - n)
						region = region[1:]
					}
					if endOwnLine {
						region = region[:len(region)-endIndent]
						after = after[1:]
					}
					buf.Write(region)
				}
			} else if len(after) > 0 && after[0] == '\n' {
				// A region on lines of its own goes with its indentation
				// and its line end.
				if n, ok := lineIndent(buf.Bytes()); ok {
					buf.Truncate(buf.Len() - n)
					after = after[1:]
				}
			}
			rest = after
		}
		buf.Write(rest)
		out = buf.Bytes()
	}
	return out
}

// lineIndent reports whether the text written so far ends with the start
// of a line and blanks only, and how many blanks.
func lineIndent(done []byte) (int, bool) {
	n := 0
	for i := len(done) - 1; i >= 0; i-- {
		switch done[i] {
		case ' ', '\t':
			n++
		case '\n':
			return n, true
		default:
			return 0, false
		}
	}
	return n, true
}

// cspMetaStart starts the <meta http-equiv> of an export page's policy,
// as the layout writes it; cspMetaRE matches the whole element.
const cspMetaStart = `<meta http-equiv="Content-Security-Policy" content="default-src &#39;self&#39;;`

var cspMetaRE = regexp.MustCompile(regexp.QuoteMeta(cspMetaStart) + `[^"]*">`)

// CSPMetaTag is the <meta http-equiv> carrying policy csp, as the layout
// writes it.
func CSPMetaTag(csp string) string {
	return `<meta http-equiv="Content-Security-Policy" content="` + html.EscapeString(csp) + `">`
}

var metaRE = regexp.MustCompile(`<meta name="(lectern-[a-z]+-url)" content="[^"]*">`)

// setMeta writes value into the <meta name="name" content="..."> elements
// of region.
func setMeta(region []byte, name, value string) []byte {
	return metaRE.ReplaceAllFunc(region, func(m []byte) []byte {
		if string(metaRE.FindSubmatch(m)[1]) != name {
			return m
		}
		return []byte(MetaTag(name, strings.TrimSpace(value)))
	})
}

// MetaTag is the meta element carrying an endpoint, as the layout writes
// it and Transform rewrites it.
func MetaTag(name, value string) string {
	return `<meta name="` + name + `" content="` + html.EscapeString(value) + `">`
}

// ContentSecurityPolicy returns the Content-Security-Policy header value
// for a site with these features. Everything is allowed from the site
// itself ('self') only: scripts (no inline script, no eval), images, fonts,
// frames, connections and form targets; connect-src adds the origins of
// AssistantURL and AnalyticsURL when their feature is on, and
// PlaygroundOrigins when the playground is, and frame-src the https
// origins of EmbedHosts. Styles allow 'unsafe-inline'
// as well, for style attributes of components (column counts, callout and
// icon colours), the playground's stylesheet and the <style> of Mermaid
// diagrams; images allow data: URLs too, which make no request.
// Endpoints that Validate refuses are left out.
func (f Site) ContentSecurityPolicy() string {
	connect := []string{"'self'"}
	seen := map[string]bool{}
	add := func(setting, raw string) {
		if o, err := endpointOrigin(setting, raw); err == nil && !seen[o] {
			seen[o] = true
			connect = append(connect, o)
		}
	}
	if f.Assistant {
		add("AssistantURL", f.AssistantURL)
	}
	if f.Analytics {
		add("AnalyticsURL", f.AnalyticsURL)
	}
	if f.Playground {
		for _, o := range f.PlaygroundOrigins {
			add("PlaygroundOrigins", o)
		}
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"connect-src " + strings.Join(connect, " ") + "; " + f.frameSrc() + "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
}

// ValidateBuild checks the endpoints given to a build: they may be empty
// (Transform writes them later) but not of another kind than http(s); and
// EmbedHosts.
func (f Site) ValidateBuild() error {
	if err := validEmbedHosts(f.EmbedHosts); err != nil {
		return err
	}
	for _, e := range []struct{ setting, raw string }{{"AssistantURL", f.AssistantURL}, {"AnalyticsURL", f.AnalyticsURL}} {
		if strings.TrimSpace(e.raw) == "" || (e.setting == "AssistantURL" && e.raw == OwnAssistant) || (e.setting == "AnalyticsURL" && e.raw == OwnAnalytics) {
			continue
		}
		if _, err := endpointOrigin(e.setting, e.raw); err != nil {
			return err
		}
	}
	return nil
}

// StripMarkup returns a page body without the markup of its features
// (the playground's form), which the search index leaves out.
func StripMarkup(body string) string {
	if !strings.Contains(body, "<!--lectern:") {
		return body
	}
	return string(Site{}.TransformRegions([]byte(body), BeginMarker, EndMarker, false, nil))
}

var (
	serverSelectRE = regexp.MustCompile(`(?s)<select class="lc-pg-input" data-pg-server>(.*?)</select>`)
	serverOptionRE = regexp.MustCompile(`<option value="([^"]*)"`)
)

// PlaygroundServerOrigins returns the origins of the API servers that the
// "Try it" forms of a built HTML page offer (the servers of its OpenAPI
// document), sorted and without duplicates: what PlaygroundOrigins needs
// for the playground to reach them under ContentSecurityPolicy. Servers
// that are not absolute http(s) URLs are left out.
func PlaygroundServerOrigins(page []byte) []string {
	if !bytes.Contains(page, []byte("data-pg-server")) {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, sel := range serverSelectRE.FindAllSubmatch(page, -1) {
		for _, m := range serverOptionRE.FindAllSubmatch(sel[1], -1) {
			if o, err := endpointOrigin("server", html.UnescapeString(string(m[1]))); err == nil && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
	}
	sort.Strings(out)
	return out
}

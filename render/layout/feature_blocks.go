package layout

import (
	"html/template"
	"strings"
	"sync"
)

// The markup of the optional features in a page (theme/features.html) is
// the same in every page whose features' URLs are the same (the pages at
// the same depth of the site), so it is written once for each and kept.
// Written with every page, it took a tenth of what search added to a
// build: html/template calls each action's method and escapers through
// reflection, some twenty calls for search alone.

// featureBlocks are a page's features' markup.
type featureBlocks struct {
	head, searchButton, assistantButton, feedback, dialogs template.HTML
}

// featureCache keeps the features' markup by the URLs it holds; a Theme
// and its copies (ForWarner) share one.
type featureCache struct {
	mu sync.Mutex
	m  map[string]*featureBlocks
}

// set sets the features' markup of v, from the cache or written now.
func (c *featureCache) set(v *pageView) {
	f := v.Features
	if !f.Search && !f.Assistant && !f.Analytics {
		return
	}
	// Everything of v the blocks read but the site's features (Begin
	// and End, AssistantMeta and AnalyticsMeta are the same for all).
	key := strings.Join([]string{v.SearchJSURL, v.AssistantJSURL, v.AnalyticsJSURL, v.SearchURL, v.RootURL}, "\x00")
	c.mu.Lock()
	b := c.m[key]
	c.mu.Unlock()
	if b == nil {
		b = &featureBlocks{
			head:            block("feature-head", v),
			searchButton:    block("search-button", v),
			assistantButton: block("assistant-button", v),
			feedback:        block("analytics-feedback", v),
			dialogs:         block("feature-dialogs", v),
		}
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]*featureBlocks{}
		}
		c.m[key] = b
		c.mu.Unlock()
	}
	v.FeatureHead, v.SearchButton, v.AssistantButton, v.AnalyticsFeedback, v.FeatureDialogs = b.head, b.searchButton, b.assistantButton, b.feedback, b.dialogs
}

// block writes the template name of theme/features.html for v.
func block(name string, v *pageView) template.HTML {
	var b strings.Builder
	if err := layoutTmpl.ExecuteTemplate(&b, name, v); err != nil {
		return "" // only a bug in the template can get here
	}
	return template.HTML(b.String())
}

// Package safe is the allow-list of what content may carry into a page:
// URL schemes (URLAllowed: relative, fragment, http, https, mailto, tel;
// data: only for images), srcset lists, event-handler attributes (never),
// CSS colours, and raw HTML (RawHTML: shown as text).
//
// It knows nothing of pages or components; the renderer, the theme and
// the export's file checks ask it.
package safe

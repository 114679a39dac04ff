// Package components turns a page's MDX tree into HTML: this is where a
// <Card>, a <Steps> or a <Tabs> becomes markup.
//
// A Renderer renders one page (Module) and the snippets and components it
// uses. Text goes through render/markdown with each element, JSX value
// and raw HTML as an inset; elements become HTML here. The components
// table (components.go) maps each Mintlify component to the function that
// writes it, with classes named lc-<kebab-name>; lowercase elements are
// HTML, kept to what is safe (html_elements.go, render/safe); components a
// file exports (or imports from .jsx modules) and imported snippets are
// expanded with their props, within Env.MaxExpansions; a component whose
// markup needs JavaScript to run is a visible placeholder and a warning. Every link and image goes
// through Env.Links; problems are warnings on Env.W, with file and line.
//
// To add a component, add its function to the table and a page using it
// to the golden test (golden_test.go, testdata/golden), which fails for a
// component without one.
//
// It knows nothing of the page around the content (render/layout), the
// site's files or the cache: Env is all it asks of the build.
package components

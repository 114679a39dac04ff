// Package mdx reads MDX (and Markdown) source into a tree, without running
// JavaScript.
//
// A Parser scans a file once into Nodes: Markdown text, JSX elements
// (components and lowercase HTML, with their Attrs and Children), {
// expressions } and raw HTML; fenced code and code spans stay literal.
// Top-level import and export statements go to an ESMSink: imports of
// .mdx/.md snippets and .jsx modules (ParseJS reads those), components
// written as arrow functions or functions, and constants (Binding). A
// Module is a parsed file with what it imports and exports. Scope.Eval
// evaluates an expression without running code: literals, arrays,
// objects, JSX, the props of the component being rendered, the file's
// constants and functions, operators and a few methods (jseval.go,
// jscall.go); ParseBody reads the const, if and return statements of a
// function body (jsscan.go). The work of a page's evaluations, the
// values they build included, is bounded by its Budget (budget.go).
// Anything else is a VUnknown Value, shown as written, and a component
// whose body cannot be read is a BDynamic Binding.
//
// It knows nothing of HTML output, components or goldmark: the renderer
// (render/components) walks the tree it produces. The scanner's helpers
// (IsComponentName, CodeSpanEnd, FenceState) are shared with the Markdown
// side so that both agree on what is code and what is a tag.
package mdx

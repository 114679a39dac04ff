// Package markdown is the Markdown engine of the build: goldmark with
// GitHub-flavoured Markdown, heading ids (HeadingIDs), fenced code through
// render/highlight (or a mermaid diagram), and the MDX extension.
//
// The MDX extension is how Markdown and JSX meet. The renderer hands
// goldmark the text of a flow in which each element, JSX value and raw
// HTML stands as an inset token (InsetToken); the extension's block parser
// turns a token alone on its line into a block node, its inline parser
// turns any other into an inline node, and its node renderer writes the
// Inset's HTML in their place. goldmark runs without indented code blocks
// and without its raw-HTML parsers: in MDX every tag is JSX, read by
// render/mdx. LimitNesting bounds how deep brackets, lists and quotes
// nest before goldmark sees them.
//
// It knows nothing of components or links: the renderer walks the tree
// Engine parses and rewrites links and images before rendering it.
package markdown

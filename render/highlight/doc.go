// Package highlight turns fenced code into highlighted HTML at build time.
//
// ParseInfo reads a fence's info string as Mintlify writes it (language,
// title, lines to highlight); Write writes the block's HTML, tokens in
// <span>s with chroma's class names, styled by CSS (chroma's GitHub styles,
// light and dark, kept in highlight_styles.css). Highlighted blocks are
// remembered in memory for the process and, with a rebuild cache, in a
// Store on disk that the next build of the same site reads.
//
// It knows nothing of Markdown, MDX or pages: a Block is a language, a
// title, line ranges and code.
package highlight

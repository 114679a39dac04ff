// Package pagemd writes a page as clean Markdown: the PAGE.md that every
// build puts beside PAGE.html, and the pages of llms-full.txt.
//
// It walks the same MDX tree as render/components (render/mdx), with the
// same scopes, so that snippets are inlined with their props, the file's
// exported components are expanded and expressions are evaluated as they
// are for the HTML; but where components writes HTML, this package writes
// Markdown a reader or a language model takes in as text:
//
//   - Markdown text is kept as written (headings, lists, tables, fences,
//     whose info string keeps the language and title), its links and
//     images resolved as the HTML page's are (links.Resolver);
//   - callouts (Note, Warning, Info, Tip, Check, Danger, Callout) become
//     block quotes led by their bold label; a Card its linked bold title
//     and its body; CardGroup and Columns their cards; Tabs, Views and
//     Accordions a bold title per panel over its content; CodeGroup its
//     fences; Steps a numbered list; ParamField and ResponseField a list
//     item "- `name` (type, required): description"; Frame its content and
//     caption; Update a heading; Visibility for="humans" nothing (as
//     Visibility for="agents" is left out of the HTML);
//   - lowercase HTML elements become their Markdown (a, img, strong, code,
//     pre, lists, tables, headings), or their content;
//   - an unknown component is its content, and an expression that renders
//     nothing (a comment, false, one that cannot be evaluated) is nothing:
//     no tag or brace of the source reaches the Markdown outside code.
//
// An OpenAPI operation page is the operation as Markdown
// (render/openapi.Markdown) around the page's own content.
//
// Warnings are render/components' to give: the same page is rendered to
// HTML first, and this package reports nothing.
package pagemd

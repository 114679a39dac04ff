package components

import (
	"strings"

	"lectern.dev/lectern/render/mdx"
)

// <Tree> (and its alias <FileTree>) shows files and folders, written
// either as <Tree.Folder> and <Tree.File> elements or as a Markdown list
// in which a name ending in "/", or with items under it, is a folder.
// Folders are details elements: they open and close without script.

// tree renders <Tree> and <FileTree>.
func tree(c *call) string {
	if !hasTreeElements(c.n.Children) {
		if items := parseTreeList(c.n.Raw); len(items) > 0 {
			var b strings.Builder
			b.WriteString(`<ul class="lc-tree">`)
			writeTreeItems(&b, items, 0)
			b.WriteString("</ul>\n")
			return b.String()
		}
	}
	return `<ul class="lc-tree">` + c.kids() + "</ul>\n"
}

// hasTreeElements reports whether nodes hold a <Tree.Folder> or
// <Tree.File>.
func hasTreeElements(nodes []*mdx.Node) bool {
	for _, n := range nodes {
		if n.Kind == mdx.ElementNode && strings.HasPrefix(n.Name, "Tree.") {
			return true
		}
	}
	return false
}

// treeFolder renders <Tree.Folder name defaultOpen openable highlight>.
func treeFolder(c *call) string {
	openable := true
	if v := c.val("openable"); (v.Kind == mdx.VBool && !v.B) || v.Str() == "false" {
		openable = false
	}
	return folderHTML(c.text("name"), c.kids(), c.flag("defaultOpen"), openable, c.flag("highlight"))
}

// treeFile renders <Tree.File name highlight>.
func treeFile(c *call) string {
	return fileHTML(c.text("name"), c.flag("highlight"))
}

func folderHTML(name, kids string, open, openable, highlight bool) string {
	class := "lc-tree-folder"
	if highlight {
		class += " lc-tree-highlight"
	}
	label := uiIcon("chevron-right") + uiIcon("folder") + `<span class="lc-tree-name">` + name + "</span>"
	if !openable {
		return `<li class="` + class + ` lc-tree-static"><span class="lc-tree-item">` + label + "</span><ul>" + kids + "</ul></li>\n"
	}
	o := ""
	if open {
		o = " open"
	}
	return `<li class="` + class + `"><details` + o + `><summary class="lc-tree-item">` + label + "</summary><ul>" + kids +
		"</ul></details></li>\n"
}

func fileHTML(name string, highlight bool) string {
	class := "lc-tree-file"
	if highlight {
		class += " lc-tree-highlight"
	}
	return `<li class="` + class + `"><span class="lc-tree-item">` + uiIcon("file") + `<span class="lc-tree-name">` + name +
		"</span></span></li>\n"
}

// treeItem is an entry of a tree written as a Markdown list.
type treeItem struct {
	name   string
	folder bool
	kids   []*treeItem
}

// maxTreeDepth bounds the nesting of a Markdown list tree; deeper items
// join the deepest level.
const maxTreeDepth = 32

// parseTreeList reads a tree written as a Markdown list ("- name", "* name"
// or "+ name", nested by indentation). It returns nil when src holds
// anything but list items and blank lines.
func parseTreeList(src string) []*treeItem {
	type level struct {
		indent int
		items  *[]*treeItem
	}
	var root []*treeItem
	stack := []level{{indent: -1, items: &root}}
	for _, line := range strings.Split(src, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		indent := 0
		for _, ch := range line[:len(line)-len(trimmed)] {
			if ch == '\t' {
				indent += 4
			} else {
				indent++
			}
		}
		if len(trimmed) < 2 || !strings.ContainsRune("-*+", rune(trimmed[0])) || (trimmed[1] != ' ' && trimmed[1] != '\t') {
			return nil
		}
		for len(stack) > 1 && indent <= stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		name := strings.TrimSpace(trimmed[2:])
		it := &treeItem{name: treeName(strings.TrimSuffix(name, "/")), folder: strings.HasSuffix(name, "/")}
		parent := stack[len(stack)-1].items
		*parent = append(*parent, it)
		if len(stack) < maxTreeDepth {
			stack = append(stack, level{indent: indent, items: &it.kids})
		}
	}
	return root
}

// treeName is the name of a list item, its inline formatting (`code`,
// **bold**, _italic_) removed.
func treeName(s string) string {
	s = strings.TrimSpace(s)
	for {
		t := s
		for _, m := range []string{"**", "__", "`", "*", "_"} {
			if len(s) > 2*len(m) && strings.HasPrefix(s, m) && strings.HasSuffix(s, m) {
				s = strings.TrimSpace(s[len(m) : len(s)-len(m)])
			}
		}
		if s == t {
			return s
		}
	}
}

// writeTreeItems writes the items of a list tree; folders with items
// under them are open.
func writeTreeItems(b *strings.Builder, items []*treeItem, depth int) {
	for _, it := range items {
		if !it.folder && len(it.kids) == 0 {
			b.WriteString(fileHTML(esc(it.name), false))
			continue
		}
		var kids strings.Builder
		if depth < maxTreeDepth {
			writeTreeItems(&kids, it.kids, depth+1)
		}
		b.WriteString(folderHTML(esc(it.name), kids.String(), len(it.kids) > 0, true, false))
	}
}

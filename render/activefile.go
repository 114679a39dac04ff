package render

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"

	"lectern.dev/lectern/render/diag"
	"lectern.dev/lectern/render/features"
	"lectern.dev/lectern/render/safe"
)

// XML documents of the repository (SVG, XML, XHTML, XSLT) run their
// scripts when opened directly. Lectern's servers sandbox them
// (ServeHeaders), but an export may be opened from file:// or served by a
// host that sends no header, and no policy can be written into them as it
// is into HTML files. So an export leaves out those that could run
// script, with a warning; the others (most SVG images) are copied as
// they are.

// xmlDocExts are the extensions of files browsers open as XML documents.
var xmlDocExts = map[string]bool{".svg": true, ".xml": true, ".xhtml": true, ".xht": true, ".xsl": true, ".xslt": true}

// htmlExts are the extensions, besides .html and .htm, that common static
// servers send as HTML: an export gives them the policy of HTML files.
var htmlExts = map[string]bool{".shtml": true, ".shtm": true}

// gunzipped returns the gzip data decompressed, and false when it is not
// gzip or is larger than maxXMLCheck decompressed.
func gunzipped(data []byte) ([]byte, bool) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, false
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxXMLCheck+1))
	return out, err == nil && len(out) <= maxXMLCheck
}

// maxXMLCheck is the size above which an XML document is not read to
// find out whether it is active: it is taken as active.
const maxXMLCheck = 16 << 20

// activeXML says why the XML document data could run script when opened
// directly ("" when it cannot): a script, handler or listener element,
// foreignObject (which holds HTML), an event handler or srcdoc attribute,
// a URL of a scheme safe.URLAllowed refuses, an animation of a link or a
// handler, a style sheet processing instruction (XSLT), an entity
// declaration, or markup that cannot be read.
func activeXML(data []byte) string {
	if len(data) > maxXMLCheck {
		return "too large to check"
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return ""
		}
		if err != nil {
			return "markup that cannot be read: " + err.Error()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch strings.ToLower(t.Name.Local) {
			case "script", "handler", "listener", "foreignobject", "iframe", "frame", "object", "embed", "base":
				return "a <" + t.Name.Local + "> element"
			}
			for _, a := range t.Attr {
				k := strings.ToLower(a.Name.Local)
				switch {
				case safe.EventHandler(k):
					return "an event handler attribute (" + a.Name.Local + ")"
				case k == "srcdoc":
					return "a srcdoc attribute"
				case k == "attributename" && (strings.Contains(strings.ToLower(a.Value), "href") || safe.EventHandler(a.Value)):
					return "an animation of " + a.Value
				case safe.URLAttrs[k]:
					if !safe.URLAllowed(a.Value, true) {
						return "a URL of another scheme (" + diag.FirstLine(a.Value, 40) + ")"
					}
				}
			}
		case xml.ProcInst:
			if strings.EqualFold(t.Target, "xml-stylesheet") {
				return "a style sheet processing instruction"
			}
		case xml.Directive:
			if bytes.Contains(bytes.ToUpper(t), []byte("ENTITY")) {
				return "an entity declaration"
			}
		}
	}
}

// exportCopy returns a file of the repository as an export copies it, or
// keep false when it is left out: an HTML file (.html, .htm, .shtml,
// .shtm) starts with the <meta http-equiv> of features.RawHTMLCSP; an XML
// document (or gzipped SVG) that could run script is left out, with a
// warning. Live builds copy every file as it is.
func (s *site) exportCopy(name string, data []byte) (out []byte, keep bool) {
	if !s.opts.Export {
		return data, true
	}
	ext := strings.ToLower(path.Ext(name))
	if features.IsPage(name) || htmlExts[ext] {
		return append([]byte(features.CSPMetaTag(features.RawHTMLCSP)+"\n"), data...), true
	}
	why := ""
	switch {
	case ext == ".svgz": // gzipped SVG, which servers send as SVG
		if doc, ok := gunzipped(data); ok {
			why = activeXML(doc)
		} else {
			why = "compressed content that cannot be checked"
		}
	case xmlDocExts[ext]:
		why = activeXML(data)
	}
	if why != "" {
		s.w.Add(name, 0, "not copied into the export: opened directly, it could run script (%s); remove it from the file", why)
		return nil, false
	}
	return data, true
}

package openapi

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The request examples: one function per language writes the snippet of
// an httpRequest, in the form the language's usual client takes (the
// forms Mintlify's examples take). String literals are escaped for their
// language, so that no value of the document can end them early.

// formBoundary separates the parts of a multipart body written as text.
const formBoundary = "---011000010111000001101001"

// textBody returns the body of req as text and its media type, for the
// languages that send a form as text: URL-encoded, or multipart parts
// around formBoundary.
func textBody(req *httpRequest) (body, mediaType string) {
	if req.Form == nil {
		return req.Body, req.BodyType
	}
	var b strings.Builder
	if !req.Multipart {
		for i, f := range req.Form {
			if i > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(f.Name) + "=" + url.QueryEscape(f.Value))
		}
		return b.String(), req.BodyType
	}
	for _, f := range req.Form {
		b.WriteString("--" + formBoundary + "\r\nContent-Disposition: form-data; name=\"" + f.Name + "\"")
		if f.File {
			b.WriteString("; filename=\"" + f.Value + "\"")
		}
		b.WriteString("\r\n\r\n" + f.Value + "\r\n")
	}
	b.WriteString("--" + formBoundary + "--\r\n")
	return b.String(), "multipart/form-data; boundary=" + formBoundary
}

// textHeaders returns the headers of req with the Content-Type of its
// body as text (textBody).
func textHeaders(req *httpRequest) []header {
	_, mt := textBody(req)
	out := make([]header, 0, len(req.Headers))
	for _, h := range req.Headers {
		if strings.EqualFold(h.Name, "Content-Type") && req.BodyType != "" {
			h.Value = mt
		}
		out = append(out, h)
	}
	return out
}

// clientHeaders returns the headers of req that a client library is
// given: all but, for a multipart body, the Content-Type, which the
// library writes with its boundary.
func clientHeaders(req *httpRequest) []header {
	if !req.Multipart {
		return req.Headers
	}
	var out []header
	for _, h := range req.Headers {
		if !strings.EqualFold(h.Name, "Content-Type") {
			out = append(out, h)
		}
	}
	return out
}

// entryLines writes pairs as the entries of a Python dict or a
// JavaScript object: one per line, indented by four spaces.
func entryLines(pairs []header) string {
	lines := make([]string, len(pairs))
	for i, p := range pairs {
		lines[i] = "    " + dq(p.Name) + ": " + dq(p.Value)
	}
	return strings.Join(lines, ",\n")
}

// formPairs returns the names and values of fields.
func formPairs(fields []formField) []header {
	out := make([]header, len(fields))
	for i, f := range fields {
		out[i] = header{f.Name, f.Value}
	}
	return out
}

// hasBody reports whether req sends a body.
func (req *httpRequest) hasBody() bool { return req.Body != "" || len(req.Form) > 0 }

// dq is a double-quoted string literal (JSON's escapes, which C-like
// languages, Python, JavaScript and Java read alike).
func dq(s string) string { return string(marshal(s)) }

// sq is a single-quoted literal in which only \ and ' are escaped (PHP,
// Ruby).
func sq(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@,+-]+$`)

// shellArg is s as one argument of a POSIX shell command.
func shellArg(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// indentRest prefixes every line of s but the first with prefix.
func indentRest(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func curlSnippet(req *httpRequest) string {
	var b strings.Builder
	b.WriteString("curl --request " + req.Method + " \\\n  --url " + shellArg(req.URL))
	for _, h := range clientHeaders(req) {
		b.WriteString(" \\\n  --header " + shellArg(h.Name+": "+h.Value))
	}
	for _, f := range req.Form {
		switch {
		case !req.Multipart:
			b.WriteString(" \\\n  --data-urlencode " + shellArg(f.Name+"="+f.Value))
		case f.File:
			b.WriteString(" \\\n  --form " + shellArg(f.Name+"=@"+f.Value))
		default:
			b.WriteString(" \\\n  --form " + shellArg(f.Name+"="+f.Value))
		}
	}
	if req.Body != "" {
		b.WriteString(" \\\n  --data " + shellArg(req.Body))
	}
	return b.String()
}

func pythonSnippet(req *httpRequest) string {
	var b strings.Builder
	b.WriteString("import requests\n\nurl = " + dq(req.URL) + "\n\n")
	arg := ""
	switch {
	case req.Multipart:
		var data []header
		var files []string
		for _, f := range req.Form {
			if f.File {
				files = append(files, "    "+dq(f.Name)+": open("+dq(f.Value)+", \"rb\")")
			} else {
				data = append(data, header{f.Name, f.Value})
			}
		}
		if len(data) > 0 {
			b.WriteString("payload = {\n" + entryLines(data) + "\n}\n")
			arg += ", data=payload"
		}
		if len(files) > 0 {
			b.WriteString("files = {\n" + strings.Join(files, ",\n") + "\n}\n")
			arg += ", files=files"
		}
	case req.Form != nil:
		b.WriteString("payload = {\n" + entryLines(formPairs(req.Form)) + "\n}\n")
		arg = ", data=payload"
	case req.BodyValue != nil:
		b.WriteString("payload = " + pyLiteral(req.BodyValue, "", 0) + "\n")
		arg = ", json=payload"
	case req.Body != "":
		b.WriteString("payload = " + dq(req.Body) + "\n")
		arg = ", data=payload"
	}
	hs := clientHeaders(req)
	if len(hs) > 0 {
		b.WriteString("headers = {\n" + entryLines(hs) + "\n}\n")
		arg += ", headers=headers"
	}
	if req.hasBody() || len(hs) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("response = requests.request(" + dq(req.Method) + ", url" + arg + ")\n\nprint(response.text)")
	return b.String()
}

// pyLiteral writes a JSON value as a Python literal.
func pyLiteral(v any, indent string, depth int) string {
	if depth > 64 {
		return "None"
	}
	switch x := v.(type) {
	case *obj:
		if x == nil || len(x.keys) == 0 {
			return "{}"
		}
		parts := make([]string, len(x.keys))
		for i, k := range x.keys {
			parts[i] = indent + "    " + dq(k) + ": " + pyLiteral(x.m[k], indent+"    ", depth+1)
		}
		return "{\n" + strings.Join(parts, ",\n") + "\n" + indent + "}"
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = indent + "    " + pyLiteral(e, indent+"    ", depth+1)
		}
		return "[\n" + strings.Join(parts, ",\n") + "\n" + indent + "]"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case nil:
		return "None"
	case json.Number:
		return x.String()
	case string:
		return dq(x)
	}
	return dq(scalarText(v))
}

// fetchOptions writes the options object of fetch() for req; ts adds
// the type of the object.
func fetchOptions(req *httpRequest, ts bool) string {
	var b strings.Builder
	if req.Multipart {
		b.WriteString("const form = new FormData();\n")
		for _, f := range req.Form {
			if f.File {
				b.WriteString("form.append(" + dq(f.Name) + ", new Blob([\"<file contents>\"]), " + dq(f.Value) + ");\n")
			} else {
				b.WriteString("form.append(" + dq(f.Name) + ", " + dq(f.Value) + ");\n")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("const options")
	if ts {
		b.WriteString(": RequestInit")
	}
	b.WriteString(" = {\n  method: " + dq(req.Method))
	if hs := clientHeaders(req); len(hs) > 0 {
		b.WriteString(",\n  headers: {\n" + entryLines(hs) + "\n  }")
	}
	switch {
	case req.Multipart:
		b.WriteString(",\n  body: form")
	case req.Form != nil:
		b.WriteString(",\n  body: new URLSearchParams({\n" + entryLines(formPairs(req.Form)) + "\n  })")
	case req.BodyValue != nil:
		b.WriteString(",\n  body: JSON.stringify(" + indentRest(req.Body, "  ") + ")")
	case req.Body != "":
		b.WriteString(",\n  body: " + dq(req.Body))
	}
	b.WriteString("\n};\n\n")
	return b.String()
}

func fetchCall(req *httpRequest) string {
	return "fetch(" + dq(req.URL) + ", options)\n  .then(response => response.json())\n" +
		"  .then(response => console.log(response))\n  .catch(err => console.error(err));"
}

func jsSnippet(req *httpRequest) string { return fetchOptions(req, false) + fetchCall(req) }

func nodeSnippet(req *httpRequest) string {
	return "// Node.js 18 or later: fetch is built in.\n" + fetchOptions(req, false) + fetchCall(req)
}

func tsSnippet(req *httpRequest) string { return fetchOptions(req, true) + fetchCall(req) }

// goString is s as a Go string literal: raw when it can be.
func goString(s string) string {
	if !strings.ContainsAny(s, "`\r") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func goSnippet(req *httpRequest) string {
	body, _ := textBody(req)
	var b strings.Builder
	b.WriteString("package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n")
	if body != "" {
		b.WriteString("\t\"strings\"\n")
	}
	b.WriteString(")\n\nfunc main() {\n\turl := " + strconv.Quote(req.URL) + "\n\n")
	payload := "nil"
	if body != "" {
		b.WriteString("\tpayload := strings.NewReader(" + goString(body) + ")\n\n")
		payload = "payload"
	}
	b.WriteString("\treq, _ := http.NewRequest(" + strconv.Quote(req.Method) + ", url, " + payload + ")\n\n")
	hs := textHeaders(req)
	for _, h := range hs {
		b.WriteString("\treq.Header.Add(" + strconv.Quote(h.Name) + ", " + strconv.Quote(h.Value) + ")\n")
	}
	if len(hs) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("\tres, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n" +
		"\tdefer res.Body.Close()\n\tbody, _ := io.ReadAll(res.Body)\n\n\tfmt.Println(string(body))\n}")
	return b.String()
}

func phpSnippet(req *httpRequest) string {
	body, _ := textBody(req)
	var b strings.Builder
	b.WriteString("<?php\n\n$curl = curl_init();\n\ncurl_setopt_array($curl, [\n")
	b.WriteString("  CURLOPT_URL => " + sq(req.URL) + ",\n  CURLOPT_RETURNTRANSFER => true,\n")
	b.WriteString("  CURLOPT_CUSTOMREQUEST => " + sq(req.Method) + ",\n")
	if body != "" {
		b.WriteString("  CURLOPT_POSTFIELDS => " + sq(body) + ",\n")
	}
	if hs := textHeaders(req); len(hs) > 0 {
		b.WriteString("  CURLOPT_HTTPHEADER => [\n")
		for i, h := range hs {
			b.WriteString("    " + sq(h.Name+": "+h.Value))
			if i < len(hs)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ],\n")
	}
	b.WriteString("]);\n\n$response = curl_exec($curl);\n$err = curl_error($curl);\n\ncurl_close($curl);\n\n" +
		"if ($err) {\n  echo 'cURL Error #:' . $err;\n} else {\n  echo $response;\n}")
	return b.String()
}

package openapi

import (
	"fmt"
	"strings"
)

// More request examples (snippets.go): languages named in
// api.examples.languages beyond the defaults.

func javaSnippet(req *httpRequest) string {
	body, _ := textBody(req)
	var b strings.Builder
	m := strings.ToLower(req.Method)
	switch m {
	case "get", "post", "put", "patch", "delete", "head", "options":
		b.WriteString("HttpResponse<String> response = Unirest." + m + "(" + dq(req.URL) + ")")
	default:
		b.WriteString("HttpResponse<String> response = Unirest.request(" + dq(req.Method) + ", " + dq(req.URL) + ")")
	}
	for _, h := range textHeaders(req) {
		b.WriteString("\n  .header(" + dq(h.Name) + ", " + dq(h.Value) + ")")
	}
	if body != "" {
		b.WriteString("\n  .body(" + dq(body) + ")")
	}
	b.WriteString("\n  .asString();")
	return b.String()
}

func rubySnippet(req *httpRequest) string {
	body, _ := textBody(req)
	var b strings.Builder
	b.WriteString("require 'uri'\nrequire 'net/http'\n\nurl = URI(" + sq(req.URL) + ")\n\n")
	b.WriteString("http = Net::HTTP.new(url.host, url.port)\n")
	if strings.HasPrefix(req.URL, "https:") {
		b.WriteString("http.use_ssl = true\n")
	}
	m := strings.ToLower(req.Method)
	b.WriteString("\nrequest = Net::HTTP::" + strings.ToUpper(m[:1]) + m[1:] + ".new(url)\n")
	for _, h := range textHeaders(req) {
		b.WriteString("request[" + sq(h.Name) + "] = " + sq(h.Value) + "\n")
	}
	if body != "" {
		b.WriteString("request.body = " + sq(body) + "\n")
	}
	b.WriteString("\nresponse = http.request(request)\nputs response.read_body")
	return b.String()
}

// psq is a single-quoted PowerShell string, in which each quote is
// doubled: ' and the typographic ones PowerShell reads as quotes too
// (‘ ’ ‚ ‛).
func psq(s string) string {
	return "'" + strings.NewReplacer("'", "''", "\u2018", "\u2018\u2018", "\u2019", "\u2019\u2019",
		"\u201a", "\u201a\u201a", "\u201b", "\u201b\u201b").Replace(s) + "'"
}

func powershellSnippet(req *httpRequest) string {
	body, mt := textBody(req)
	var b strings.Builder
	b.WriteString("$headers = @{}\n")
	for _, h := range textHeaders(req) {
		if strings.EqualFold(h.Name, "Content-Type") {
			continue // -ContentType
		}
		b.WriteString("$headers.Add(" + psq(h.Name) + ", " + psq(h.Value) + ")\n")
	}
	b.WriteString("$response = Invoke-WebRequest -Uri " + psq(req.URL) + " -Method " + req.Method + " -Headers $headers")
	if body != "" {
		b.WriteString(" -ContentType " + psq(mt) + " -Body " + psq(body))
	}
	b.WriteString("\n$response.Content")
	return b.String()
}

// escapedString writes s between double quotes with \\, \", \n, \r and
// \t escaped and other control characters as unicode(code point) (Swift's
// \u{…}, Rust's too).
func escapedString(s string, unicode func(rune) string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029:
			b.WriteString(unicode(r))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func bracedUnicode(r rune) string { return fmt.Sprintf(`\u{%x}`, r) }

func swiftSnippet(req *httpRequest) string {
	body, _ := textBody(req)
	str := func(s string) string { return escapedString(s, bracedUnicode) }
	var b strings.Builder
	b.WriteString("import Foundation\n\nlet url = URL(string: " + str(req.URL) + ")!\nvar request = URLRequest(url: url)\n")
	b.WriteString("request.httpMethod = " + str(req.Method) + "\n")
	if hs := textHeaders(req); len(hs) > 0 {
		b.WriteString("request.allHTTPHeaderFields = [\n")
		for _, h := range hs {
			b.WriteString("  " + str(h.Name) + ": " + str(h.Value) + ",\n")
		}
		b.WriteString("]\n")
	}
	if body != "" {
		b.WriteString("request.httpBody = Data(" + str(body) + ".utf8)\n")
	}
	b.WriteString("\nlet (data, _) = try await URLSession.shared.data(for: request)\nprint(String(decoding: data, as: UTF8.self))")
	return b.String()
}

func csharpSnippet(req *httpRequest) string {
	body, mt := textBody(req)
	var b strings.Builder
	b.WriteString("using System.Net.Http.Headers;\n\nvar client = new HttpClient();\nvar request = new HttpRequestMessage\n{\n")
	m := strings.ToLower(req.Method)
	switch m {
	case "get", "post", "put", "patch", "delete", "head", "options", "trace":
		b.WriteString("    Method = HttpMethod." + strings.ToUpper(m[:1]) + m[1:] + ",\n")
	default:
		b.WriteString("    Method = new HttpMethod(" + dq(req.Method) + "),\n")
	}
	b.WriteString("    RequestUri = new Uri(" + dq(req.URL) + "),\n")
	var hs []header
	for _, h := range req.Headers {
		if !strings.EqualFold(h.Name, "Content-Type") {
			hs = append(hs, h) // the content's own header
		}
	}
	if len(hs) > 0 {
		b.WriteString("    Headers =\n    {\n")
		for _, h := range hs {
			b.WriteString("        { " + dq(h.Name) + ", " + dq(h.Value) + " },\n")
		}
		b.WriteString("    },\n")
	}
	if body != "" {
		b.WriteString("    Content = new StringContent(" + dq(body) + ")\n    {\n        Headers =\n        {\n" +
			"            ContentType = MediaTypeHeaderValue.Parse(" + dq(mt) + ")\n        }\n    }\n")
	}
	b.WriteString("};\nusing (var response = await client.SendAsync(request))\n{\n    response.EnsureSuccessStatusCode();\n" +
		"    var body = await response.Content.ReadAsStringAsync();\n    Console.WriteLine(body);\n}")
	return b.String()
}

// kq is a Kotlin string literal: a JSON string with $ escaped.
func kq(s string) string { return strings.ReplaceAll(dq(s), "$", `\$`) }

func kotlinSnippet(req *httpRequest) string {
	body, mt := textBody(req)
	var b strings.Builder
	b.WriteString("val client = OkHttpClient()\n\n")
	arg := "null"
	if body != "" {
		b.WriteString("val mediaType = " + kq(mt) + ".toMediaType()\nval body = " + kq(body) + ".toRequestBody(mediaType)\n")
		arg = "body"
	}
	b.WriteString("val request = Request.Builder()\n  .url(" + kq(req.URL) + ")\n  .method(" + kq(req.Method) + ", " + arg + ")\n")
	for _, h := range textHeaders(req) {
		b.WriteString("  .addHeader(" + kq(h.Name) + ", " + kq(h.Value) + ")\n")
	}
	b.WriteString("  .build()\n\nval response = client.newCall(request).execute()\nprintln(response.body?.string())")
	return b.String()
}

// rustString is s as a Rust string literal: raw when it can be.
func rustString(s string) string {
	if !strings.Contains(s, `"#`) {
		return `r#"` + s + `"#`
	}
	return escapedString(s, bracedUnicode)
}

func rustSnippet(req *httpRequest) string {
	body, _ := textBody(req)
	var b strings.Builder
	b.WriteString("#[tokio::main]\nasync fn main() -> Result<(), reqwest::Error> {\n    let client = reqwest::Client::new();\n")
	b.WriteString("    let response = client\n        .request(reqwest::Method::" + req.Method + ", " + rustString(req.URL) + ")\n")
	for _, h := range textHeaders(req) {
		b.WriteString("        .header(" + rustString(h.Name) + ", " + rustString(h.Value) + ")\n")
	}
	if body != "" {
		b.WriteString("        .body(" + rustString(body) + ")\n")
	}
	b.WriteString("        .send()\n        .await?;\n\n    println!(\"{}\", response.text().await?);\n    Ok(())\n}")
	return b.String()
}

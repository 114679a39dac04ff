// Package apicheck checks HTTP requests and responses against Lectern's
// OpenAPI 3.1 document (httpapi/openapi.json), so that the API's tests can
// prove that what the handlers really send is what the document promises.
//
// It is built on kin-openapi: the document is loaded and validated with
// openapi3, routed with the legacy router (no gorilla/mux) and checked with
// openapi3filter, which for an OpenAPI 3.1 document validates bodies with its
// JSON Schema 2020-12 validator (type arrays with "null", if/then, const).
// On top of that, apicheck
//   - rejects undocumented status codes,
//   - lists every missing required response header at once (kin-openapi stops
//     at the first one),
//   - validates the formats that kin-openapi only annotates: uri,
//     uri-reference and hostname, and date-time strictly with time.Parse,
//   - reports a documented response's body that is present where the document
//     has no content, and a wrong Content-Type with the documented ones,
//   - checks server-sent events (text/event-stream) and CSV tables (text/csv:
//     RFC 4180 with a header row, no cell a spreadsheet would run as a
//     formula), which kin-openapi does not or only loosely decodes.
//
// It is a test helper: it is not meant for production request paths.
package apicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Checker validates requests/responses against Lectern's OpenAPI document.
// It is safe for concurrent use by parallel tests.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
}

// New loads and validates the document doc (JSON or YAML) and prepares a
// router for it. The document must be OpenAPI 3.1 or later and must not refer
// to external files.
func New(doc []byte) (*Checker, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	t, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, fmt.Errorf("apicheck: loading the OpenAPI document: %w", err)
	}
	if !t.IsOpenAPI31OrLater() {
		return nil, fmt.Errorf("apicheck: the document is OpenAPI %q, want 3.1 or later", t.OpenAPI)
	}
	// Validate checks the document against the OpenAPI 3.1 rules (3.1 mode is
	// switched on by the version field); EnableSchemaFormatValidation also
	// rejects formats that no validator knows, such as a misspelt "date-tme".
	if err := t.Validate(loader.Context, openapi3.EnableSchemaFormatValidation()); err != nil {
		return nil, fmt.Errorf("apicheck: invalid OpenAPI document: %w", err)
	}
	router, err := legacy.NewRouter(t, openapi3.EnableSchemaFormatValidation())
	if err != nil {
		return nil, fmt.Errorf("apicheck: routing the OpenAPI document: %w", err)
	}
	return &Checker{doc: t, router: router}, nil
}

// Document returns the loaded document, for tests that walk it. It must not
// be modified.
func (c *Checker) Document() *openapi3.T { return c.doc }

// CheckResponse checks that resp, whose body is given separately (already
// read; resp.Body is not used), matches the operation that req routes to:
// the path and method exist, the status code is documented, the content type
// is a documented one, the body validates against its schema (required
// fields, enums, additionalProperties false, bounds, patterns, nullability,
// formats date-time, uri, uri-reference and hostname) and the documented
// required headers are present and valid. req.URL.Path includes the /v1
// prefix; req's scheme and host, if any, are ignored. The request itself is
// not validated (tests send invalid requests on purpose), nor is its
// authentication. The error lists everything found wrong, one problem a line.
func (c *Checker) CheckResponse(req *http.Request, resp *http.Response, body []byte) error {
	if req == nil || resp == nil {
		return errors.New("apicheck: CheckResponse needs a request and a response")
	}
	input, err := c.route(req)
	if err != nil {
		return err
	}
	op := input.Route.Operation
	where := fmt.Sprintf("%s %s (%s) → %d", req.Method, req.URL.Path, op.OperationID, resp.StatusCode)

	respRef := op.Responses.Status(resp.StatusCode)
	if respRef == nil {
		respRef = op.Responses.Default()
	}
	if respRef == nil || respRef.Value == nil {
		return fmt.Errorf("%s: status %d is not documented; documented: %s",
			where, resp.StatusCode, strings.Join(sortedKeys(op.Responses.Map()), ", "))
	}
	doc := respRef.Value

	header := resp.Header
	if header == nil {
		header = http.Header{}
	}
	var problems []string

	// Required headers, all of them; the headers that are present are left
	// to kin-openapi, which checks their values against their schemas.
	present := make(openapi3.Headers, len(doc.Headers))
	for _, name := range sortedKeys(doc.Headers) {
		if strings.EqualFold(name, "Content-Type") {
			continue
		}
		h := doc.Headers[name]
		if len(header.Values(name)) > 0 {
			present[name] = h
		} else if h.Value != nil && h.Value.Required {
			problems = append(problems, fmt.Sprintf("missing required header %q", name))
		}
	}

	// Content type, and a body where none is documented.
	excludeBody := false
	ct := header.Get("Content-Type")
	switch {
	case len(doc.Content) == 0:
		excludeBody = true
		if len(body) > 0 {
			problems = append(problems, fmt.Sprintf("has a %d-byte body (Content-Type %q) but documents none", len(body), ct))
		}
	case doc.Content.Get(ct) == nil:
		excludeBody = true
		problems = append(problems, fmt.Sprintf("Content-Type %q is not documented; want %s",
			ct, strings.Join(sortedKeys(doc.Content), " or ")))
	case strings.HasPrefix(ct, "text/event-stream"):
		// Server-sent events: kin-openapi has no decoder for them; each
		// event must have a name and JSON data.
		excludeBody = true
		problems = append(problems, checkEventStream(body)...)
	case strings.HasPrefix(ct, "text/csv"):
		// A table: checked here as CSV, then by kin-openapi as a string.
		problems = append(problems, checkCSV(body)...)
	}

	// Hand the rest to kin-openapi, with the response reduced to the headers
	// that are present so that it goes on to the body.
	patched := *doc
	patched.Headers = present
	patchedOp := *op
	patchedOp.Responses = openapi3.NewResponses(openapi3.WithStatus(resp.StatusCode, &openapi3.ResponseRef{Value: &patched}))
	patchedRoute := *input.Route
	patchedRoute.Operation = &patchedOp
	input.Route = &patchedRoute

	opts := validationOptions()
	opts.IncludeResponseStatus = true
	opts.ExcludeResponseBody = excludeBody
	rvi := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 resp.StatusCode,
		Header:                 header,
		Options:                opts,
	}
	rvi.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), rvi); err != nil {
		problems = append(problems, describe(err)...)
	}

	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%s does not match the OpenAPI document:\n  - %s", where, strings.Join(problems, "\n  - "))
}

// CheckRequest validates a request against the operation it routes to: path
// parameters, headers (such as Idempotency-Key), the Content-Type and the
// body, which is given separately (req.Body is not read). It is meant to make
// sure that the requests tests send are themselves valid, so it also requires
// an "Authorization: Bearer <token>" header where the document asks for
// bearerAuth; the token itself is not checked. A request with a body where the
// operation documents none is rejected.
func (c *Checker) CheckRequest(req *http.Request, body []byte) error {
	if req == nil {
		return errors.New("apicheck: CheckRequest needs a request")
	}
	input, err := c.route(req)
	if err != nil {
		return err
	}
	r := input.Request
	if len(body) > 0 {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	} else {
		r.Body = http.NoBody
		r.ContentLength = 0
	}
	opts := validationOptions()
	opts.AuthenticationFunc = requireBearer
	opts.RejectWhenRequestBodyNotSpecified = true
	input.Options = opts
	if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
		where := fmt.Sprintf("%s %s (%s)", req.Method, req.URL.Path, input.Route.Operation.OperationID)
		return fmt.Errorf("%s: request does not match the OpenAPI document:\n  - %s", where, strings.Join(describe(err), "\n  - "))
	}
	return nil
}

// route finds the operation of req. It routes a copy of req whose URL holds
// only the path and the query, as the document's server is the relative "/v1".
func (c *Checker) route(req *http.Request) (*openapi3filter.RequestValidationInput, error) {
	r := req.Clone(context.Background())
	r.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	r.Host = ""
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		return nil, fmt.Errorf("%s %s: no operation in the OpenAPI document: %w", req.Method, req.URL.Path, err)
	}
	return &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route}, nil
}

// validationOptions are the options shared by requests and responses: all
// errors rather than the first, no authentication check, readable schema
// errors and the format validators kin-openapi lacks.
func validationOptions() *openapi3filter.Options {
	opts := &openapi3filter.Options{
		MultiError:         true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: []openapi3.SchemaValidationOption{
			openapi3.WithStringFormatValidators(formats),
		},
	}
	opts.WithCustomSchemaErrorFunc(schemaErrorMessage)
	return opts
}

// requireBearer is the AuthenticationFunc of CheckRequest: an http bearer
// scheme needs "Authorization: Bearer <token>"; any other scheme passes.
func requireBearer(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s == nil || s.Type != "http" || !strings.EqualFold(s.Scheme, "bearer") {
		return nil
	}
	scheme, token, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return fmt.Errorf("security scheme %q needs an \"Authorization: Bearer <token>\" header", in.SecuritySchemeName)
	}
	return nil
}

// schemaErrorMessage renders a schema error as the path of the failing value
// and the reason, without the schema and value dumps kin-openapi appends by
// default. It is also kin-openapi's message customizer, so that the errors
// nested in a oneOf or allOf failure read the same way.
func schemaErrorMessage(err *openapi3.SchemaError) string {
	reason := err.Reason
	if reason == "" {
		reason = fmt.Sprintf("does not match the schema's %q", err.SchemaField)
	}
	// The Origin of a format error repeats its reason; that of a oneOf or
	// allOf error says why each alternative failed.
	if err.Origin != nil && err.SchemaField != "format" && !strings.Contains(reason, err.Origin.Error()) {
		reason += ": " + err.Origin.Error()
	}
	// The JSON Schema 2020-12 validator's reasons already name the path,
	// twice, and quoted otherwise: `error at "/a": at '/a': …`. Keep one, as
	// kin-openapi's own validator writes it.
	if rest, ok := strings.CutPrefix(reason, "error at "); ok {
		if _, after, found := strings.Cut(rest, ": "); found && strings.HasPrefix(after, "at '") {
			reason = after
		} else {
			return "at " + rest
		}
	}
	if rest, ok := strings.CutPrefix(reason, "at '"); ok {
		if path, after, found := strings.Cut(rest, "': "); found {
			if path == "" {
				return after
			}
			return fmt.Sprintf("at %q: %s", path, after)
		}
	}
	if p := err.JSONPointer(); len(p) > 0 {
		reason = fmt.Sprintf("at %q: %s", "/"+strings.Join(p, "/"), reason)
	}
	return reason
}

// describe flattens a kin-openapi validation error into one line per
// problem, without repeats.
func describe(err error) []string {
	var out []string
	seen := map[string]bool{}
	add := func(line string) {
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		switch e := err.(type) {
		case nil:
		case openapi3.MultiError:
			for _, err := range e {
				walk(prefix, err)
			}
		case *openapi3.SchemaError:
			// An error of the JSON Schema 2020-12 validator is a tree whose
			// inner nodes only group their causes: report the leaves. (Those
			// of kin-openapi's own validator name the path in JSONPointer,
			// not in their reason, and are reported whole.)
			var causes openapi3.MultiError
			if from2020(e) && e.Origin != nil && errors.As(e.Origin, &causes) {
				walk(prefix, causes)
				return
			}
			add(prefix + schemaErrorMessage(e))
		case *openapi3filter.ResponseError:
			if e.Err == nil {
				add(prefix + e.Reason)
				return
			}
			walk(prefix+e.Reason+": ", e.Err)
		case *openapi3filter.RequestError:
			p := prefix
			switch {
			case e.Parameter != nil:
				p += fmt.Sprintf("parameter %q in %s: ", e.Parameter.Name, e.Parameter.In)
			case e.RequestBody != nil:
				p += "request body: "
			}
			if e.Err == nil {
				add(p + e.Reason)
				return
			}
			if e.Reason != "" && e.Reason != e.Err.Error() {
				p += e.Reason + ": "
			}
			walk(p, e.Err)
		case *openapi3filter.SecurityRequirementsError:
			for _, err := range e.Errors {
				walk(prefix, err)
			}
		default:
			add(prefix + strings.Join(strings.Fields(err.Error()), " "))
		}
	}
	walk("", err)
	return out
}

// from2020 tells whether err was converted from an error of the JSON Schema
// 2020-12 validator, whose reasons start with the location of the value.
func from2020(err *openapi3.SchemaError) bool {
	for _, p := range []string{"jsonschema validation failed", "error at ", "at '"} {
		if strings.HasPrefix(err.Reason, p) {
			return true
		}
	}
	return false
}

// formats are the string formats the document uses that kin-openapi does not
// validate by itself (uri, uri-reference, hostname), and a stricter date-time
// than its regular expression (which accepts February 31st).
var formats = map[string]openapi3.StringFormatValidator{
	"date-time":     openapi3.NewCallbackValidator(validateDateTime),
	"uri":           openapi3.NewCallbackValidator(validateURI),
	"uri-reference": openapi3.NewCallbackValidator(validateURIReference),
	"hostname":      openapi3.NewCallbackValidator(validateHostname),
}

func validateDateTime(s string) error {
	// RFC 3339 needs the upper-case T (Go accepts only that) and a zone.
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return fmt.Errorf("not an RFC 3339 date-time: %v", err)
	}
	return nil
}

func validateURIReference(s string) error {
	if s == "" {
		return nil // the empty reference is a valid URI reference
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r > unicode.MaxASCII }); i >= 0 {
		return fmt.Errorf("not a URI reference: character %q at %d must be percent-encoded", s[i], i)
	}
	if _, err := url.Parse(s); err != nil {
		return fmt.Errorf("not a URI reference: %v", err)
	}
	return nil
}

func validateURI(s string) error {
	if err := validateURIReference(s); err != nil {
		return errors.New(strings.Replace(err.Error(), "URI reference", "URI", 1))
	}
	u, _ := url.Parse(s)
	if u == nil || u.Scheme == "" {
		return errors.New("not an absolute URI: no scheme")
	}
	return nil
}

// validateHostname checks an RFC 1123 host name: dot-separated labels of 1 to
// 63 letters, digits and hyphens, not starting or ending with a hyphen, at
// most 253 characters in all.
func validateHostname(s string) error {
	if s == "" || len(s) > 253 {
		return errors.New("not a host name: must be 1 to 253 characters long")
	}
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || len(label) > 63 {
			return fmt.Errorf("not a host name: label %q must be 1 to 63 characters long", label)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("not a host name: label %q starts or ends with a hyphen", label)
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return fmt.Errorf("not a host name: label %q has the character %q", label, r)
			}
		}
	}
	return nil
}

// sortedKeys returns the keys of m in order, status codes numerically.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, errA := strconv.Atoi(a)
		y, errB := strconv.Atoi(b)
		if errA == nil && errB == nil {
			return x - y
		}
		return strings.Compare(a, b)
	})
	return keys
}

// checkEventStream checks a text/event-stream body: events separated by
// blank lines, each with an "event:" name and one "data:" line of JSON.
func checkEventStream(body []byte) []string {
	var problems []string
	text := strings.TrimRight(string(body), "\n")
	if text == "" {
		return []string{"the event stream is empty"}
	}
	for i, block := range strings.Split(text, "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data = strings.TrimPrefix(line, "data: ")
			default:
				problems = append(problems, fmt.Sprintf("event %d has a line that is not event: or data: (%q)", i+1, line))
			}
		}
		if name == "" || !json.Valid([]byte(data)) {
			problems = append(problems, fmt.Sprintf("event %d lacks a name or JSON data: %q", i+1, block))
		}
	}
	return problems
}

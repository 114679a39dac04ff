package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
)

// readBody reads a request body of at most max bytes.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	tooLarge := lectern.Errorf(lectern.ETOOLARGE, "The request body is larger than %d KiB.", max>>10)
	if r.ContentLength > max {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge
	}
	if err != nil {
		return nil, &lectern.Error{Code: lectern.EINVALID, Message: "The request body could not be read.", Err: err}
	}
	return body, nil
}

// requireJSON checks that the request declares a JSON body.
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || mt != "application/json" {
		return lectern.Errorf(lectern.EMEDIATYPE, "Send the request body as JSON with \"Content-Type: application/json\".")
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return lectern.Errorf(lectern.EMEDIATYPE, "JSON request bodies must be UTF-8.")
	}
	return nil
}

// decodeJSON decodes one JSON object into v, refusing unknown fields,
// trailing data and wrong types with an EINVALID error naming the field.
func decodeJSON(body []byte, v any) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return lectern.Errorf(lectern.EINVALID, "The request body is empty; send a JSON object.")
	}
	if trimmed[0] != '{' {
		return lectern.Errorf(lectern.EINVALID, "The request body must be a JSON object.")
	}
	if err := checkKeys(body, v); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return lectern.Errorf(lectern.EINVALID, "The request body has data after the JSON object.")
	}
	return nil
}

func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return lectern.Errorf(lectern.EINVALID, "The request body is not valid JSON (at byte %d).", syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "(body)"
		}
		return &lectern.Error{Code: lectern.EINVALID, Message: fmt.Sprintf("Field %q must be a %s.", field, typ.Type.String()),
			Fields: []lectern.FieldError{{Field: field, Message: "must be a " + typ.Type.String()}}}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return lectern.Errorf(lectern.EINVALID, "The request body is truncated JSON.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &lectern.Error{Code: lectern.EINVALID, Message: fmt.Sprintf("Unknown field %q.", name),
			Fields: []lectern.FieldError{{Field: name, Message: "unknown field"}}}
	}
	return lectern.Errorf(lectern.EINVALID, "The request body could not be decoded: %s.", strings.TrimPrefix(err.Error(), "json: "))
}

// requireNoBody accepts an empty body or an empty JSON object, for
// operations that take none.
func requireNoBody(body []byte) error {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || bytes.Equal(bytes.Join(bytes.Fields(t), nil), []byte("{}")) {
		return nil
	}
	return lectern.Errorf(lectern.EINVALID, "This operation takes no request body.")
}

// exportRequest is the body of POST /v1/static-export/jobs.
type exportRequest struct {
	Domain   *string `json:"domain"`
	BasePath *string `json:"basePath"`
}

// parseExportRequest decodes and validates a start-export body, returning
// the normalized domain and base path.
func parseExportRequest(body []byte) (domain, basePath string, err error) {
	var req exportRequest
	if err := decodeJSON(body, &req); err != nil {
		return "", "", err
	}
	var fields []lectern.FieldError
	if req.Domain == nil {
		fields = append(fields, lectern.FieldError{Field: "domain", Message: "is required"})
	} else if d, err := lectern.NormalizeDomain(*req.Domain); err != nil {
		fields = append(fields, lectern.FieldError{Field: "domain", Message: lectern.ErrorMessage(err)})
	} else {
		domain = d
	}
	if req.BasePath != nil {
		if p, err := lectern.NormalizeBasePath(*req.BasePath); err != nil {
			fields = append(fields, lectern.FieldError{Field: "basePath", Message: lectern.ErrorMessage(err)})
		} else {
			basePath = p
		}
	}
	if err := invalidFields(fields); err != nil {
		return "", "", err
	}
	return domain, basePath, nil
}

// invalidFields is actions.InvalidFields: the EINVALID error naming
// every bad field, nil when there are none.
func invalidFields(fields []lectern.FieldError) error { return actions.InvalidFields(fields) }

// checkKeys refuses top-level keys that are not exactly a JSON field name
// of v (encoding/json would match them regardless of case) and keys given
// twice (encoding/json would keep the last silently).
func checkKeys(body []byte, v any) error {
	allowed := map[string]bool{}
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		allowed[name] = true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // the opening brace
		return jsonError(err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonError(err)
		}
		key, _ := tok.(string)
		if !allowed[key] {
			return &lectern.Error{Code: lectern.EINVALID, Message: fmt.Sprintf("Unknown field %q.", key),
				Fields: []lectern.FieldError{{Field: key, Message: "unknown field"}}}
		}
		if seen[key] {
			return &lectern.Error{Code: lectern.EINVALID, Message: fmt.Sprintf("Field %q is given twice.", key),
				Fields: []lectern.FieldError{{Field: key, Message: "given twice"}}}
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return jsonError(err)
		}
	}
	return nil
}

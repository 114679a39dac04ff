package httpapi

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// List pages: newest first, limit records (defaultLimit when not given,
// at most maxLimit), and an opaque cursor that the previous page's
// nextCursor gave.
const (
	defaultLimit = 20
	maxLimit     = 100
)

// listPage is the body of a list response.
type listPage[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"nextCursor"`
}

// pageOf reads the limit and cursor query parameters into the page the
// store is asked for: one record more than the limit, which says whether
// there is a next page.
func pageOf(r *http.Request) (store.Page, int, error) {
	q := r.URL.Query()
	limit := defaultLimit
	if vs, ok := q["limit"]; ok {
		n, err := strconv.Atoi(vs[0])
		if len(vs) > 1 || err != nil || n < 1 || n > maxLimit {
			return store.Page{}, 0, queryError("limit", "must be a whole number from 1 to "+strconv.Itoa(maxLimit))
		}
		limit = n
	}
	pg := store.Page{Limit: limit + 1}
	if vs, ok := q["cursor"]; ok {
		c, ok := decodeCursor(vs[0])
		if len(vs) > 1 || !ok {
			return store.Page{}, 0, queryError("cursor", "is not a cursor this API returned: give the nextCursor of the previous page, or none for the first page")
		}
		pg.After = &c
	}
	return pg, limit, nil
}

// queryError is an EINVALID error about a query parameter.
func queryError(name, msg string) error {
	return &lectern.Error{Code: lectern.EINVALID, Message: "Query parameter " + name + ": " + msg + ".",
		Fields: []lectern.FieldError{{Field: name, Message: msg}}}
}

// writePage answers a list request: the page the query asks for (pageOf),
// read by list, each record shown as view makes it (same: as it is) and
// placed in the list by place (its creation time and ID).
func writePage[T, V any](a *api, w http.ResponseWriter, r *http.Request, list func(store.Page) ([]T, error),
	place func(T) store.Cursor, view func(T) V) {
	pg, limit, err := pageOf(r)
	var items []T
	if err == nil {
		items, err = list(pg)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	p := pageFrom(items, limit, place)
	out := listPage[V]{Items: make([]V, len(p.Items)), NextCursor: p.NextCursor}
	for i, it := range p.Items {
		out.Items[i] = view(it)
	}
	writeJSON(w, http.StatusOK, out)
}

// same is the view of a record shown as it is.
func same[T any](t T) T { return t }

// pageFrom cuts the store's answer (up to limit+1 records) to limit and
// makes the next page's cursor from the last record kept, when there is
// more.
func pageFrom[T any](items []T, limit int, place func(T) store.Cursor) listPage[T] {
	out := listPage[T]{Items: items}
	if out.Items == nil {
		out.Items = []T{}
	}
	if len(items) > limit {
		out.Items = items[:limit]
		c := encodeCursor(place(items[limit-1]))
		out.NextCursor = &c
	}
	return out
}

// A cursor is "v1.<microseconds>.<id>" in unpadded base64url: opaque to
// clients, who give it back as it is.
func encodeCursor(c store.Cursor) string {
	s := "v1." + strconv.FormatInt(c.At.UnixMicro(), 10) + "." + c.ID
	return base64.RawURLEncoding.EncodeToString([]byte(s))
}

func decodeCursor(s string) (store.Cursor, bool) {
	if len(s) > 200 {
		return store.Cursor{}, false
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return store.Cursor{}, false
	}
	v, rest, ok := strings.Cut(string(b), ".")
	if !ok || v != "v1" {
		return store.Cursor{}, false
	}
	at, id, ok := strings.Cut(rest, ".")
	micros, err := strconv.ParseInt(at, 10, 64)
	if !ok || err != nil || micros < 0 || !cursorID(id) {
		return store.Cursor{}, false
	}
	return store.Cursor{At: time.UnixMicro(micros).UTC(), ID: id}, true
}

// cursorID accepts what a record's ID may be: 1 to 100 letters, digits,
// "_" and "-".
func cursorID(id string) bool {
	if id == "" || len(id) > 100 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

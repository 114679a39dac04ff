package dashboard

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"lectern.dev/lectern/store"
)

// listCursor encodes where a newest-first list's page ended, for its
// "Older" link (?after=).
func listCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "." + id))
}

// listPage reads the ?after= cursor into the store page of n records
// plus one, which tells whether there is a next page. ok is false for a
// cursor this dashboard did not write.
func listPage(r *http.Request, n int) (pg store.Page, ok bool) {
	pg.Limit = n + 1
	after := r.URL.Query().Get("after")
	if after == "" {
		return pg, true
	}
	b, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil || len(after) > 200 {
		return pg, false
	}
	at, id, found := strings.Cut(string(b), ".")
	micros, err := strconv.ParseInt(at, 10, 64)
	if !found || err != nil || micros < 0 || id == "" {
		return pg, false
	}
	pg.After = &store.Cursor{At: time.UnixMicro(micros).UTC(), ID: id}
	return pg, true
}

// trimPage cuts a list read with listPage(r, n) (n+1 records at most) to
// its n first, and returns the cursor of the "Older" link, "" on the
// last page. key gives a record's place in the list.
func trimPage[T any](list []T, n int, key func(T) (time.Time, string)) ([]T, string) {
	if len(list) <= n {
		return list, ""
	}
	list = list[:n]
	return list, listCursor(key(list[n-1]))
}

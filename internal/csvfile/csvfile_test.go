package csvfile

import (
	"net/http/httptest"
	"testing"
)

// TestEncode: RFC 4180 with CRLF (encoding/csv drops a lone carriage
// return), formulas defused.
func TestEncode(t *testing.T) {
	got := string(Encode([][]string{{"query", "n"}, {"=1+2", "3"}, {"a,b", "-1"}, {"say \"hi\"\nthere", "@x"}, {"\tx", "\rx"}, {"", "+"}}))
	want := "query,n\r\n'=1+2,3\r\n\"a,b\",'-1\r\n\"say \"\"hi\"\"\r\nthere\",'@x\r\n'\tx,\"'x\"\r\n,'+\r\n"
	if got != want {
		t.Errorf("Encode:\n got %q\nwant %q", got, want)
	}
}

// TestWrite: an attachment named as asked, never cached.
func TestWrite(t *testing.T) {
	w := httptest.NewRecorder()
	Write(w, "analytics views.csv", [][]string{{"path"}, {"/"}})
	h := w.Header()
	if w.Code != 200 || h.Get("Content-Type") != ContentType || h.Get("Cache-Control") != "no-store" ||
		h.Get("Content-Disposition") != `attachment; filename="analytics views.csv"` || w.Body.String() != "path\r\n/\r\n" {
		t.Errorf("Write: %d %v %q", w.Code, h, w.Body.String())
	}
}

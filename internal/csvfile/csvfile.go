// Package csvfile writes tables as CSV downloads: RFC 4180 with CRLF line
// ends, a header row first, offered as an attachment, and every cell a
// spreadsheet would run as a formula defused (CSV injection). The API's
// analytics reports (httpapi) and the dashboard's downloads of them both
// write through it, so a report's file is the same byte for byte.
package csvfile

import (
	"bytes"
	"encoding/csv"
	"mime"
	"net/http"
	"strings"
)

// ContentType is the Content-Type of the files.
const ContentType = "text/csv; charset=utf-8"

// Encode returns rows as CSV, each cell through SafeCell.
func Encode(rows [][]string) []byte {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.UseCRLF = true
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = SafeCell(c)
		}
		cw.Write(cells) // into a buffer: cannot fail
	}
	cw.Flush()
	return buf.Bytes()
}

// Write answers rows (Encode) with status 200, offered for download as
// name and never cached: the tables hold what readers typed.
func Write(w http.ResponseWriter, name string, rows [][]string) {
	body := Encode(rows)
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}

// SafeCell keeps a spreadsheet from running a cell as a formula: a cell
// starting with =, +, -, @, a tab or a carriage return gets a single quote
// before it, which spreadsheets show as text. Queries, comments and
// questions are what readers typed.
func SafeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

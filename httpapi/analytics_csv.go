package httpapi

import (
	"bytes"
	"encoding/csv"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// csvType is the Content-Type of the reports' CSV tables.
const csvType = "text/csv; charset=utf-8"

// wantsCSV reports whether the Accept headers ask for CSV: they name
// text/csv with a non-zero quality, no lower than application/json's. Any
// other Accept, none included, gets JSON, as everywhere in the API.
func wantsCSV(accept []string) bool {
	qCSV, qJSON := -1.0, -1.0
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if s, ok := params["q"]; ok {
				if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v <= 1 {
					q = v
				}
			}
			switch typ {
			case "text/csv":
				qCSV = max(qCSV, q)
			case "application/json":
				qJSON = max(qJSON, q)
			}
		}
	}
	return qCSV > 0 && qCSV >= qJSON
}

// writeCSV answers rows, a header row first, as RFC 4180 CSV (CRLF line
// ends), offered for download as name. Cells a spreadsheet would take as a
// formula are defused (safeCell): queries, comments and questions are
// what readers typed.
func writeCSV(w http.ResponseWriter, name string, rows [][]string) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	cw.UseCRLF = true
	for _, row := range rows {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = safeCell(c)
		}
		cw.Write(cells) // into a buffer: cannot fail
	}
	cw.Flush()
	h := w.Header()
	h.Set("Content-Type", csvType)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
}

// safeCell keeps a spreadsheet from running a cell as a formula (CSV
// injection): a cell starting with =, +, -, @, a tab or a carriage return
// gets a single quote before it, which spreadsheets show as text.
func safeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

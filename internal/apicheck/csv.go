package apicheck

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// checkCSV checks a text/csv body as the API promises it: RFC 4180 (quotes
// only around whole cells, doubled inside, every line ended by CRLF), a
// header row of distinct, non-empty names, every row as long as the
// header, and no cell a spreadsheet would run as a formula (one starting
// with =, +, -, @, a tab or a carriage return: the API writes a single
// quote before such text). kin-openapi goes on to validate the body, as
// its rows joined, against the documented string schema.
func checkCSV(body []byte) []string {
	var problems []string
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		problems = append(problems, "the CSV does not end with CRLF")
	}
	inQuotes := false
	for i, c := range body {
		switch {
		case c == '"':
			inQuotes = !inQuotes
		case c == '\n' && !inQuotes && (i == 0 || body[i-1] != '\r'):
			return append(problems, fmt.Sprintf("the CSV has a line ended by LF alone at byte %d: RFC 4180 lines end with CRLF", i))
		}
	}
	r := csv.NewReader(bytes.NewReader(body))
	header, err := r.Read()
	if err != nil {
		return append(problems, fmt.Sprintf("the CSV has no header row: %v", err))
	}
	seen := map[string]bool{}
	for _, name := range header {
		if strings.TrimSpace(name) == "" || seen[name] {
			problems = append(problems, fmt.Sprintf("the CSV header %q has an empty or repeated name", header))
			break
		}
		seen[name] = true
	}
	for row := 2; ; row++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(problems, fmt.Sprintf("the CSV is not RFC 4180: %v", err))
		}
		for i, cell := range rec {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				problems = append(problems, fmt.Sprintf("row %d, column %s: %q would run as a spreadsheet formula", row, header[i], cell))
			}
		}
	}
	return problems
}

package apicheck_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestCheckCSV: a report's CSV table (Accept: text/csv) passes when it is
// RFC 4180 with its documented header, and each way of getting it wrong
// is named.
func TestCheckCSV(t *testing.T) {
	t.Parallel()
	c := checker(t)
	const views = "/v1/analytics/prj_01hzy3k6q2v9d8e7f6g5h4j3k2/views"
	const csvCT = "text/csv; charset=utf-8"
	for _, tc := range []struct {
		name, ct, body string
		wantErr        []string
	}{
		{name: "table", ct: csvCT, body: "path,views,visitors\r\n/quickstart,12,8\r\n\"/a,b\",1,1\r\n"},
		{name: "header only", ct: csvCT, body: "path,views,visitors\r\n"},
		{name: "defused formula", ct: csvCT, body: "path,views,visitors\r\n'=HYPERLINK(1),1,1\r\n"},
		{name: "quoted line break", ct: csvCT, body: "path,views,visitors\r\n\"/a\nb\",1,1\r\n"},
		{name: "without charset", ct: "text/csv", body: "path,views,visitors\r\n"},
		{name: "another report's header", ct: csvCT, body: "query,searches,clicks,noResults,clickThrough\r\n",
			wantErr: []string{"pattern"}},
		{name: "LF line ends", ct: csvCT, body: "path,views,visitors\n/a,1,1\n", wantErr: []string{"LF alone", "CRLF"}},
		{name: "ragged row", ct: csvCT, body: "path,views,visitors\r\n/a,1\r\n", wantErr: []string{"not RFC 4180", "wrong number of fields"}},
		{name: "bare quote", ct: csvCT, body: "path,views,visitors\r\n/a\"b,1,1\r\n", wantErr: []string{"not RFC 4180"}},
		{name: "formula", ct: csvCT, body: "path,views,visitors\r\n=1+1,1,1\r\n", wantErr: []string{"row 2, column path", "formula"}},
		{name: "at sign", ct: csvCT, body: "path,views,visitors\r\n@SUM(A1),1,1\r\n", wantErr: []string{"formula"}},
		{name: "repeated header", ct: csvCT, body: "path,path,visitors\r\n", wantErr: []string{"repeated"}},
		{name: "empty", ct: csvCT, body: "", wantErr: []string{"no header row"}},
		{name: "not documented", ct: "text/plain", body: "path,views,visitors\r\n", wantErr: []string{`"text/plain" is not documented`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, views, nil)
			resp := &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {tc.ct}, "X-Request-Id": {"req_1"}}}
			checkErr(t, c.CheckResponse(req, resp, []byte(tc.body)), tc.wantErr)
		})
	}
}

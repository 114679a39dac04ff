package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
)

// An update superseded by a newer one ends lectern update --wait with
// exit status 2. The server here answers as a real one does when a newer
// update was queued before this one started, which a test of the real
// server cannot bring about on demand.
func TestUpdateSupersededExits2(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/project/update/prj_1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(202)
		fmt.Fprint(w, `{"statusId":"upd_1"}`)
	})
	mux.HandleFunc("GET /v1/project/update-status/upd_1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"statusId":"upd_1","projectId":"prj_1","status":"superseded","source":"api","createdAt":"2025-01-02T03:04:05Z",
			"startedAt":null,"endedAt":"2025-01-02T03:04:06Z","summary":"Superseded by upd_2.","commit":null,"logs":[],"supersededBy":"upd_2"}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	env := map[string]string{"LECTERN_API_URL": srv.URL, "LECTERN_API_KEY": "lct_test"}
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
	}{
		{[]string{"update", "prj_1", "--wait"}, "upd_1\nsuperseded: Superseded by upd_2.\n",
			"update upd_1: superseded\nlectern: update upd_1 was superseded by upd_2, which builds the newer state of the branch\n"},
		{[]string{"update", "prj_1", "--wait", "--json"}, `"supersededBy": "upd_2"`, ""},
	} {
		var out, errb bytes.Buffer
		err := cli.Run(context.Background(), tc.args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
		code := cli.Report(&errb, err)
		if code != 2 || !strings.Contains(out.String(), tc.stdout) || errb.String() != tc.stderr {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, code, out.String(), errb.String())
		}
	}
}

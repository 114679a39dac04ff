package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
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

// The client commands take their settings from LECTERN_... variables
// before checking them: LECTERN_DOMAIN gives export its domain,
// LECTERN_TIMEOUT is checked like --timeout, and LECTERN_OUT implies
// --wait as --out does.
func TestClientCommandsReadEnvironmentFirst(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var requests []string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path+" "+string(body))
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/static-export/jobs" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(202)
		fmt.Fprint(w, `{"jobId":"exp_1","domain":"docs.example.com","status":"queued","progress":0,"pageCount":0,
			"createdAt":"2025-01-02T03:04:05Z","updatedAt":"2025-01-02T03:04:05Z","completedAt":null,"error":null}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "site.tar.gz")
	for _, tc := range []struct {
		args           []string
		env            map[string]string
		code           int
		stdout, stderr string
		request        string
	}{
		{[]string{"export"}, map[string]string{"LECTERN_DOMAIN": "docs.example.com"}, 0, "exp_1\n", "",
			`POST /v1/static-export/jobs {"domain":"docs.example.com"}`},
		{[]string{"update", "prj_1", "--wait"}, map[string]string{"LECTERN_TIMEOUT": "0s"}, 1, "",
			"lectern: --timeout must be positive\n", ""},
		{[]string{"update", "prj_1"}, map[string]string{"LECTERN_WAIT": "true", "LECTERN_TIMEOUT": "0s"}, 1, "",
			"lectern: --timeout must be positive\n", ""},
		{[]string{"export", "--domain", "docs.example.com"}, map[string]string{"LECTERN_OUT": out, "LECTERN_TIMEOUT": "0s"}, 1, "",
			"lectern: --timeout must be positive\n", ""},
	} {
		mu.Lock()
		requests = nil
		mu.Unlock()
		env := map[string]string{"LECTERN_API_URL": srv.URL, "LECTERN_API_KEY": "lct_test"}
		for k, v := range tc.env {
			env[k] = v
		}
		var stdout, stderr bytes.Buffer
		err := cli.Run(context.Background(), tc.args, func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
		code := cli.Report(&stderr, err)
		mu.Lock()
		got := strings.Join(requests, "\n")
		mu.Unlock()
		if code != tc.code || stdout.String() != tc.stdout || stderr.String() != tc.stderr || got != tc.request {
			t.Errorf("%v with %v: exit %d\nstdout %q\nstderr %q\nrequests %q", tc.args, tc.env, code, stdout.String(), stderr.String(), got)
		}
	}
}

package client_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern/client"
)

// fakeAPI is a tiny stand-in for a Lectern server, enough for the
// examples: an update that is queued, runs and succeeds over three polls,
// an export that completes, its bundle, and a pro organization's refusal.
func fakeAPI() *httptest.Server {
	var mu sync.Mutex
	polls := 0
	archive := []byte("a bundle's bytes")
	sum := sha256.Sum256(archive)
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, body string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("POST /v1/project/update/{id}", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 202, `{"statusId":"upd_1"}`)
	})
	mux.HandleFunc("GET /v1/project/update-status/{id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		polls++
		n := polls
		mu.Unlock()
		switch {
		case n == 1:
			reply(w, 200, `{"statusId":"upd_1","projectId":"prj_docs","status":"queued","source":"api","createdAt":"2025-01-02T03:04:05Z",
				"startedAt":null,"endedAt":null,"summary":"Queued.","commit":null,"logs":[]}`)
		case n == 2:
			reply(w, 200, `{"statusId":"upd_1","projectId":"prj_docs","status":"in_progress","source":"api","createdAt":"2025-01-02T03:04:05Z",
				"startedAt":"2025-01-02T03:04:06Z","endedAt":null,"summary":"Building.","commit":null,"logs":["Fetching branch main"]}`)
		default:
			reply(w, 200, `{"statusId":"upd_1","projectId":"prj_docs","status":"success","source":"api","createdAt":"2025-01-02T03:04:05Z",
				"startedAt":"2025-01-02T03:04:06Z","endedAt":"2025-01-02T03:04:08Z","summary":"Deployed 2 pages from 1a2b3c4d5e6f (refs/heads/main).",
				"commit":{"sha":"1a2b3c4d5e6f","ref":"refs/heads/main","message":"Docs"},"logs":["Fetching branch main","Rendered 2 pages"]}`)
		}
	})
	mux.HandleFunc("POST /v1/static-export/jobs", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer lct_pro" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(403)
			fmt.Fprint(w, `{"type":"urn:lectern:problem:plan_required","title":"Forbidden","status":403,`+
				`"detail":"Static export requires the enterprise plan.","code":"plan_required"}`)
			return
		}
		reply(w, 202, `{"jobId":"exp_1","domain":"docs.acme.com","status":"queued","progress":0,"pageCount":0,
			"createdAt":"2025-01-02T03:04:05Z","updatedAt":"2025-01-02T03:04:05Z","completedAt":null,"error":null}`)
	})
	mux.HandleFunc("GET /v1/static-export/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"jobId":"exp_1","domain":"docs.acme.com","status":"completed","progress":100,"pageCount":2,
			"createdAt":"2025-01-02T03:04:05Z","updatedAt":"2025-01-02T03:04:07Z","completedAt":"2025-01-02T03:04:07Z","error":null}`)
	})
	var srv *httptest.Server
	mux.HandleFunc("POST /v1/static-export/jobs/{id}/bundle", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, fmt.Sprintf(`{"jobId":"exp_1","bundleUrl":"%s/download/exp_1.tar.gz?sig=abc","expiresAt":"2025-01-02T04:04:07Z","sizeBytes":%d,"sha256":"%s"}`,
			srv.URL, len(archive), hex.EncodeToString(sum[:])))
	})
	mux.HandleFunc("GET /download/exp_1.tar.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Write(archive)
	})
	srv = httptest.NewServer(mux)
	return srv
}

// Trigger an update and follow it to its end, printing its log as it
// comes.
func ExampleClient_WaitUpdate() {
	api := fakeAPI()
	defer api.Close()
	c, err := client.New(api.URL, "lct_example", client.WithPollInterval(10*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	acc, err := c.TriggerUpdate(ctx, "prj_docs")
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := c.WaitUpdate(ctx, acc.StatusID, func(st *client.UpdateStatus, newLogs []string) {
		for _, line := range newLogs {
			fmt.Println("log:", line)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Status, st.Summary)
	// Output:
	// log: Fetching branch main
	// log: Rendered 2 pages
	// success Deployed 2 pages from 1a2b3c4d5e6f (refs/heads/main).
}

// Export a domain, wait for the job, and download its bundle, checked
// against its size and SHA-256.
func ExampleClient_Download() {
	api := fakeAPI()
	defer api.Close()
	c, _ := client.New(api.URL, "lct_example")
	ctx := context.Background()
	job, err := c.StartExport(ctx, "docs.acme.com", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	job, err = c.WaitExport(ctx, job.JobID, nil)
	if err != nil || job.Status != client.ExportCompleted {
		fmt.Println("export did not complete:", err)
		return
	}
	b, err := c.Bundle(ctx, job.JobID)
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer // a temporary file, in real use
	if err := c.Download(ctx, b, &buf, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(job.PageCount, "pages,", b.SizeBytes, "bytes, link valid until", b.ExpiresAt.Format(time.RFC3339))
	// Output:
	// 2 pages, 16 bytes, link valid until 2025-01-02T04:04:07Z
}

// Error answers carry the problem's stable code.
func ExampleIsCode() {
	api := fakeAPI()
	defer api.Close()
	c, _ := client.New(api.URL, "lct_pro")
	_, err := c.StartExport(context.Background(), "docs.smallco.com", "")
	if client.IsCode(err, client.CodePlanRequired) {
		fmt.Println("upgrade to the enterprise plan to export")
	}
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, strings.TrimSuffix(e.Detail, "."))
	}
	// Output:
	// upgrade to the enterprise plan to export
	// 403 plan_required Static export requires the enterprise plan
}

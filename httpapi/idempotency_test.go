package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/httpapi"
	"lectern.dev/lectern/store"
)

// withKey sets an Idempotency-Key on r.
func withKey(r *http.Request, key string) *http.Request {
	r.Header.Set("Idempotency-Key", key)
	return r
}

func TestIdempotentStartExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	body := []byte(`{"domain":"` + entDomain + `"}`)
	start := func(key, idemKey string, b []byte) (*http.Response, []byte) {
		return e.do(t, withKey(req("POST", "/v1/static-export/jobs", key, b), idemKey))
	}
	resp1, body1 := start(e.entKey, "export-1", body)
	if resp1.StatusCode != http.StatusAccepted || resp1.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d replayed=%q %s", resp1.StatusCode, resp1.Header.Get("Idempotent-Replayed"), body1)
	}
	resp2, body2 := start(e.entKey, "export-1", body)
	if resp2.StatusCode != resp1.StatusCode || !bytes.Equal(body1, body2) {
		t.Errorf("replay: %d %s, want %d %s", resp2.StatusCode, body2, resp1.StatusCode, body1)
	}
	if resp2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay lacks Idempotent-Replayed: true")
	}
	if resp2.Header.Get("Location") != resp1.Header.Get("Location") || resp2.Header.Get("Content-Type") != "application/json" {
		t.Errorf("replay Location %q Content-Type %q", resp2.Header.Get("Location"), resp2.Header.Get("Content-Type"))
	}
	// Another key of the same organization shares the Idempotency-Key.
	k2, _ := e.newKey(e.ent.ID)
	if resp, b := start(k2, "export-1", body); resp.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, body1) {
		t.Errorf("same organization, other API key: %d replayed=%q %s", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), b)
	}
	if n := e.exports(t, e.ent.ID); n != 1 {
		t.Errorf("%d exports created, want 1", n)
	}
	if n := e.notes.n.Load(); n != 1 {
		t.Errorf("Notify called %d times, want 1", n)
	}

	// The same key with another body, or on another operation: 422.
	for _, other := range [][]byte{[]byte(`{"domain":"DOCS.ENT.TEST"}`), []byte(`{"domain":"nobody.test"}`)} {
		resp, b := start(e.entKey, "export-1", other)
		wantProblem(t, resp, b, http.StatusUnprocessableEntity, lectern.EIDEMPOTENCYREUSED)
	}
	resp, b := e.do(t, withKey(req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil), "export-1"))
	wantProblem(t, resp, b, http.StatusUnprocessableEntity, lectern.EIDEMPOTENCYREUSED)

	// A 4xx answer is final too, and replayed.
	resp1, body1 = start(e.entKey, "export-404", []byte(`{"domain":"nobody.test"}`))
	wantProblem(t, resp1, body1, http.StatusNotFound, lectern.ENOTFOUND)
	resp2, body2 = start(e.entKey, "export-404", []byte(`{"domain":"nobody.test"}`))
	if resp2.StatusCode != http.StatusNotFound || resp2.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(body1, body2) {
		t.Errorf("404 replay: %d replayed=%q %s", resp2.StatusCode, resp2.Header.Get("Idempotent-Replayed"), body2)
	}
}

func TestIdempotentTriggerUpdate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	trigger := func(key, project string) (*http.Response, []byte) {
		return e.do(t, withKey(req("POST", "/v1/project/update/"+project, key, nil), "deploy-7"))
	}
	resp1, body1 := trigger(e.entKey, e.entProj.ID)
	resp2, body2 := trigger(e.entKey, e.entProj.ID)
	if resp1.StatusCode != http.StatusAccepted || resp2.StatusCode != http.StatusAccepted || !bytes.Equal(body1, body2) ||
		resp2.Header.Get("Idempotent-Replayed") != "true" || resp2.Header.Get("Location") != resp1.Header.Get("Location") {
		t.Errorf("replay: %d %s then %d %s (replayed=%q)", resp1.StatusCode, body1, resp2.StatusCode, body2, resp2.Header.Get("Idempotent-Replayed"))
	}
	// Only one update: a second one would have superseded the first.
	id := decode(t, body1)["statusId"].(string)
	if u, err := e.raw.GetUpdate(context.Background(), id); err != nil || u.Status != lectern.UpdateQueued {
		t.Errorf("update %s: %v %v, want queued", id, u, err)
	}
	if n, _ := e.raw.CountJobs(context.Background()); n[store.KindUpdate]["queued"] != 1 || n[store.KindUpdate]["done"] != 0 {
		t.Errorf("update jobs %v, want 1 queued", n[store.KindUpdate])
	}
	if n := e.notes.n.Load(); n != 1 {
		t.Errorf("Notify called %d times, want 1", n)
	}

	// Keys are per organization: the free organization's "deploy-7" is its own.
	resp3, body3 := trigger(e.freeKey, e.freeProj.ID)
	if resp3.StatusCode != http.StatusAccepted || resp3.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(body3, body1) {
		t.Errorf("other organization: %d replayed=%q %s", resp3.StatusCode, resp3.Header.Get("Idempotent-Replayed"), body3)
	}
	if resp4, body4 := trigger(e.freeKey, e.freeProj.ID); resp4.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(body3, body4) {
		t.Errorf("other organization replay: %d %s", resp4.StatusCode, body4)
	}
}

func TestIdempotentBundle(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	id := e.startExport(t, e.entKey, entDomain)
	e.completeExport(t, id)
	path := "/v1/static-export/jobs/" + id + "/bundle"
	resp1, body1 := e.do(t, withKey(req("POST", path, e.entKey, nil), "bundle-1"))
	e.skew.Store(int64(3 * time.Second))
	resp2, body2 := e.do(t, withKey(req("POST", path, e.entKey, nil), "bundle-1"))
	if resp1.StatusCode != http.StatusOK || resp2.StatusCode != http.StatusOK || !bytes.Equal(body1, body2) || resp2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("bundle replay: %d %s then %d %s", resp1.StatusCode, body1, resp2.StatusCode, body2)
	}
}

func TestInvalidIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	body := []byte(`{"domain":"` + entDomain + `"}`)
	for name, values := range map[string][]string{
		"300 characters":   {strings.Repeat("k", 300)},
		"256 characters":   {strings.Repeat("k", 256)},
		"empty":            {""},
		"control char":     {"key\x01"},
		"non-ASCII":        {"clé"},
		"two headers":      {"a", "b"},
		"two equal values": {"a", "a"},
	} {
		r := req("POST", "/v1/static-export/jobs", e.entKey, body)
		for _, v := range values {
			r.Header.Add("Idempotency-Key", v)
		}
		resp, b := e.do(t, r)
		p := wantProblem(t, resp, b, http.StatusBadRequest, lectern.EINVALID)
		if !slices.Contains(p.fields(), "Idempotency-Key") {
			t.Errorf("%s: errors[] %v does not name Idempotency-Key", name, p.fields())
		}
	}
	// 255 printable characters are fine.
	if resp, b := e.do(t, withKey(req("POST", "/v1/static-export/jobs", e.entKey, body), strings.Repeat("k", 255))); resp.StatusCode != http.StatusAccepted {
		t.Errorf("255-character key: %d %s", resp.StatusCode, b)
	}
	// On the operations without a body as well.
	resp, b := e.do(t, withKey(req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil), strings.Repeat("k", 300)))
	wantProblem(t, resp, b, http.StatusBadRequest, lectern.EINVALID)
}

// flakyStore fails CreateUpdate once, and can hold CreateExport.
type flakyStore struct {
	store.Store
	failed  atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (f *flakyStore) CreateUpdate(ctx context.Context, u *lectern.Update) error {
	if !f.failed.Swap(true) {
		return errors.New("disk I/O error")
	}
	return f.Store.CreateUpdate(ctx, u)
}

func (f *flakyStore) CreateExport(ctx context.Context, e *lectern.ExportJob, q store.ExportQuota) error {
	f.entered <- struct{}{}
	<-f.release
	return f.Store.CreateExport(ctx, e, q)
}

func TestIdempotencyRetriesAndConcurrency(t *testing.T) {
	t.Parallel()
	fs := &flakyStore{entered: make(chan struct{}, 1), release: make(chan struct{})}
	e := newEnv(t, httpapi.Config{}, func(s store.Store) store.Store { fs.Store = s; return fs })

	// A 500 is not final: the retry runs again.
	r := func() *http.Request {
		return withKey(req("POST", "/v1/project/update/"+e.entProj.ID, e.entKey, nil), "retry-me")
	}
	resp, b := e.do(t, r())
	wantProblem(t, resp, b, http.StatusInternalServerError, lectern.EINTERNAL)
	resp, b = e.do(t, r())
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry after a 500: %d replayed=%q %s", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), b)
	}

	// The same key while the first request runs: 409 idempotency_key_in_use.
	body := []byte(`{"domain":"` + entDomain + `"}`)
	start := func() *http.Request { return withKey(req("POST", "/v1/static-export/jobs", e.entKey, body), "slow") }
	type result struct {
		resp *http.Response
		body []byte
	}
	done := make(chan result)
	go func() {
		resp, b := e.serve(start())
		done <- result{resp, b}
	}()
	<-fs.entered
	resp, b = e.do(t, start())
	wantProblem(t, resp, b, http.StatusConflict, lectern.EIDEMPOTENCYBUSY)
	close(fs.release)
	first := <-done
	if first.resp.StatusCode != http.StatusAccepted {
		t.Fatalf("first: %d %s", first.resp.StatusCode, first.body)
	}
	resp, b = e.do(t, start())
	if resp.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, first.body) {
		t.Errorf("after the first finished: %d %s", resp.StatusCode, b)
	}
}

// A key left pending by a process that died while handling the first
// request (its response is never stored) is taken over by a retry once it
// has been pending longer than any request runs; until then the retry is
// told the key is in use.
func TestIdempotencyKeyAbandonedByDeadProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, httpapi.Config{}, nil)
	path := "/v1/project/update/" + e.entProj.ID
	sum := sha256.Sum256([]byte("POST " + path + "\n"))
	pending := func(key string, age time.Duration) {
		rec := &store.IdempotencyRecord{Scope: e.ent.ID, Key: key, RequestHash: hex.EncodeToString(sum[:]), CreatedAt: time.Now().Add(-age)}
		if existing, err := e.raw.ReserveIdempotency(context.Background(), rec, time.Now().Add(-24*time.Hour)); err != nil || existing != nil {
			t.Fatalf("reserve %s: %v %v", key, existing, err)
		}
	}
	pending("recent", 10*time.Second)
	resp, b := e.do(t, withKey(req("POST", path, e.entKey, nil), "recent"))
	wantProblem(t, resp, b, http.StatusConflict, lectern.EIDEMPOTENCYBUSY)

	pending("abandoned", 10*time.Minute)
	resp, first := e.do(t, withKey(req("POST", path, e.entKey, nil), "abandoned"))
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("retry of an abandoned key: %d replayed=%q %s", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), first)
	}
	resp, b = e.do(t, withKey(req("POST", path, e.entKey, nil), "abandoned"))
	if resp.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(b, first) {
		t.Errorf("the retry's response is not replayed: %d %s", resp.StatusCode, b)
	}
}

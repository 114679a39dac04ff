package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"lectern.dev/lectern/store"
)

var secretCases = []testCase{
	{"CreatedOnce", testSecretOnce},
	{"Concurrent", testSecretConcurrent},
	{"CreateError", testSecretCreateError},
	{"Delete", testSecretDelete},
}

var lifecycleCases = []testCase{
	{"Ping", testPing},
	{"CloseTwice", testCloseTwice},
}

func randomBytes() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

func testSecretOnce(t *testing.T, s store.Store) {
	var calls atomic.Int32
	want := append(randomBytes(), 0, 0xff) // binary-safe
	create := func() ([]byte, error) {
		calls.Add(1)
		return bytes.Clone(want), nil
	}
	got, err := s.GetOrCreateSecret(t.Context(), "link-signing", create)
	must(t, err, "GetOrCreateSecret")
	if !bytes.Equal(got, want) {
		t.Errorf("GetOrCreateSecret = %x, want the created %x", got, want)
	}
	for range 3 {
		got, err := s.GetOrCreateSecret(t.Context(), "link-signing", func() ([]byte, error) {
			calls.Add(1)
			return randomBytes(), nil
		})
		must(t, err, "GetOrCreateSecret")
		if !bytes.Equal(got, want) {
			t.Errorf("GetOrCreateSecret later = %x, want the stored %x", got, want)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("create called %d times, want once", n)
	}
	other, err := s.GetOrCreateSecret(t.Context(), "other", func() ([]byte, error) { return []byte("other-secret"), nil })
	must(t, err, "GetOrCreateSecret(other)")
	if string(other) != "other-secret" {
		t.Errorf("GetOrCreateSecret(other) = %q, want a secret of its own", other)
	}
}

func testSecretConcurrent(t *testing.T, s store.Store) {
	const n = 8
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results [n][]byte
		errs    [n]error
	)
	ctx := t.Context()
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.GetOrCreateSecret(ctx, "shared", func() ([]byte, error) { return randomBytes(), nil })
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Errorf("caller %d: GetOrCreateSecret: %v", i, errs[i])
		} else if len(results[i]) == 0 {
			t.Errorf("caller %d: GetOrCreateSecret returned an empty secret", i)
		} else if !bytes.Equal(results[i], results[0]) {
			t.Errorf("caller %d got %x, caller 0 got %x; want the same secret", i, results[i], results[0])
		}
	}
	got, err := s.GetOrCreateSecret(ctx, "shared", func() ([]byte, error) { return randomBytes(), nil })
	must(t, err, "GetOrCreateSecret")
	if errs[0] == nil && !bytes.Equal(got, results[0]) {
		t.Errorf("GetOrCreateSecret afterwards = %x, want %x", got, results[0])
	}
}

func testSecretCreateError(t *testing.T, s store.Store) {
	boom := errors.New("no entropy")
	_, err := s.GetOrCreateSecret(t.Context(), "k", func() ([]byte, error) { return nil, boom })
	if err == nil {
		t.Fatal("GetOrCreateSecret with a failing create returned nil error")
	}
	got, err := s.GetOrCreateSecret(t.Context(), "k", func() ([]byte, error) { return []byte("second"), nil })
	must(t, err, "GetOrCreateSecret")
	if string(got) != "second" {
		t.Errorf("GetOrCreateSecret after a failed create = %q, want %q (nothing stored by the failure)", got, "second")
	}
}

func testPing(t *testing.T, s store.Store) {
	must(t, s.Ping(t.Context()), "Ping")
	newOrg(t, s)
	must(t, s.Ping(context.Background()), "Ping")
}

func testCloseTwice(t *testing.T, s store.Store) {
	newOrg(t, s)
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func testSecretDelete(t *testing.T, s store.Store) {
	must(t, s.DeleteSecret(t.Context(), "never-stored"), "DeleteSecret(missing)")
	_, err := s.GetOrCreateSecret(t.Context(), "old", func() ([]byte, error) { return []byte("first"), nil })
	must(t, err, "GetOrCreateSecret")
	_, err = s.GetOrCreateSecret(t.Context(), "kept", func() ([]byte, error) { return []byte("kept"), nil })
	must(t, err, "GetOrCreateSecret")
	must(t, s.DeleteSecret(t.Context(), "old"), "DeleteSecret")
	got, err := s.GetOrCreateSecret(t.Context(), "old", func() ([]byte, error) { return []byte("second"), nil })
	must(t, err, "GetOrCreateSecret")
	if string(got) != "second" {
		t.Errorf("GetOrCreateSecret after DeleteSecret = %q, want a new secret %q", got, "second")
	}
	got, err = s.GetOrCreateSecret(t.Context(), "kept", func() ([]byte, error) { return []byte("other"), nil })
	must(t, err, "GetOrCreateSecret")
	if string(got) != "kept" {
		t.Errorf("DeleteSecret(old) removed another secret: got %q", got)
	}
}

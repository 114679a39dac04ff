package client_test

import (
	"errors"
	"strings"
	"testing"

	"lectern.dev/lectern/client"
)

// TestAsk: the organization's integration asks its live site's assistant
// through the API and reads the answer as it streams, with its sources;
// another organization's domain is not found.
func TestAsk(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "pro", f.good, true, "ask")
	other := f.tenant(t, "pro", f.good, false, "nosy")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)

	var pieces []string
	a, err := c.Ask(ctx, tn.domains[0], []client.AssistantMessage{{Role: "user", Content: "How do I install the acme CLI?"}},
		func(s string) { pieces = append(pieces, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !a.Found || !strings.Contains(a.Text, "Install the acme CLI") || strings.Join(pieces, "") != a.Text ||
		len(a.Citations) == 0 || !strings.HasPrefix(a.Citations[0].URL, "/quickstart") || a.Citations[0].Title != "Quickstart" {
		t.Fatalf("answer %+v (pieces %q)", a, pieces)
	}

	_, err = newClient(t, f.url, other.key).Ask(ctx, tn.domains[0], []client.AssistantMessage{{Role: "user", Content: "How do I install the acme CLI?"}}, nil)
	var e *client.Error
	if !errors.As(err, &e) || e.Code != client.CodeNotFound {
		t.Fatalf("another organization's domain: %v, want not found", err)
	}
	_, err = c.Ask(ctx, tn.domains[0], []client.AssistantMessage{{Role: "assistant", Content: "Hi"}}, nil)
	if !errors.As(err, &e) || e.Code != client.CodeInvalidRequest {
		t.Fatalf("no question: %v, want invalid request", err)
	}
}

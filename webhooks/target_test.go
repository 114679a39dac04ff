package webhooks

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
)

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url, want string // want: "" accepted, else part of the error
		private   bool
	}{
		{"https://ci.example.com/lectern", "", false},
		{"http://93.184.216.34:8080/hook", "", false},
		{"https://127.0.0.1/hook", "own network", false},
		{"https://127.0.0.1/hook", "", true},
		{"http://169.254.169.254/latest", "own network", false},
		{"http://10.0.0.8/hook", "own network", false},
		{"http://100.64.1.1/hook", "own network", false},
		{"http://[::1]/hook", "own network", false},
		{"http://[fd00::1]/hook", "own network", false},
		{"http://[::127.0.0.1]/hook", "own network", false},
		{"http://[64:ff9b::a00:1]/hook", "own network", false},
		{"http://127.1/hook", "short form", false},
		{"http://0177.0.0.1/hook", "short form", false},
		{"http://localhost:8080/hook", "own network", false},
		{"http://intranet/hook", "own network", false},
		{"ftp://ci.example.com/x", "scheme", false},
		{"https://user:pw@ci.example.com/x", "user information", false},
		{"https://ci.example.com/x#frag", "fragment", false},
		{"ci.example.com/x", "absolute", false},
		{"https://ci.example.com/" + strings.Repeat("a", 3000), "longer", false},
	} {
		_, err := CheckURL(c.url, c.private)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("CheckURL(%.60q, %v) = %v", c.url, c.private, err)
		case c.want != "" && (lectern.ErrorCode(err) != lectern.EINVALID || !strings.Contains(err.Error(), c.want)):
			t.Errorf("CheckURL(%.60q, %v) = %v, want an invalid_request saying %q", c.url, c.private, err, c.want)
		}
	}
}

// TestClientRefusesPrivateAddresses: the delivery client does not connect
// to a loopback endpoint (what a name resolving inward would give) unless
// private targets are allowed.
func TestClientRefusesPrivateAddresses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, nil)
	_, err := Client(time.Second, false).Do(req)
	var pe errPrivate
	if !errors.As(err, &pe) || reason(err) != "refused: the endpoint's address is not a public one" {
		t.Fatalf("a loopback endpoint: %v, want it refused", err)
	}
	resp, err := Client(time.Second, true).Do(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("with private targets allowed: %v %v", resp, err)
	}
	resp.Body.Close()
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if !strings.HasPrefix(a, SecretPrefix) || len(a) != len(SecretPrefix)+44 || a == b {
		t.Fatalf("secrets %q %q", a, b)
	}
}

package lectern_test

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

// TestRedactURL: only secrets are hidden, as a readable "***" (never
// %2A%2A%2A), and what is not secret (the user name of a database role,
// the host, paths to key files, harmless settings) is kept as written, so
// that an operator can tell which database or bucket an error is about.
func TestRedactURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, want string
		secrets        []string // must not appear in the output
	}{
		{"password", "postgres://lectern:hunter2@db:5432/lectern",
			"postgres://lectern:***@db:5432/lectern", []string{"hunter2"}},
		{"no password", "postgres://db:5432/lectern?sslmode=require",
			"postgres://db:5432/lectern?sslmode=require", nil},
		{"a role without a password is no secret", "postgres://lectern@db/lectern",
			"postgres://lectern@db/lectern", nil},
		{"postgresql:// too", "postgresql://lectern:hunter2@db/lectern",
			"postgresql://lectern:***@db/lectern", []string{"hunter2"}},
		{"empty password", "postgres://lectern:@db/lectern",
			"postgres://lectern:***@db/lectern", nil},
		{"percent-encoded password", "postgres://lectern:p%40ss%2Fw0rd@db/lectern",
			"postgres://lectern:***@db/lectern", []string{"p%40ss", "w0rd"}},
		{"password with an @", "postgres://lectern:hun@ter2@db/lectern",
			"postgres://lectern:***@db/lectern", []string{"hun", "ter2"}},
		{"user name with an escaped character", "postgres://le%40ctern:hunter2@db/lectern",
			"postgres://le%40ctern:***@db/lectern", []string{"hunter2"}},
		{"password in the query", "postgres://db/lectern?sslmode=require&password=hunter2",
			"postgres://db/lectern?sslmode=require&password=***", []string{"hunter2"}},
		{"sslpassword is secret, sslkey and sslcert are paths", "postgres://lectern@db/lectern?sslkey=/etc/lectern/client.key&sslpassword=hunter2&sslcert=/etc/lectern/client.crt",
			"postgres://lectern@db/lectern?sslkey=/etc/lectern/client.key&sslpassword=***&sslcert=/etc/lectern/client.crt", []string{"hunter2"}},
		{"both, order and spelling kept", "postgres://lectern:hunter2@db/lectern?application_name=lectern%20api&PASSWORD=hunter3&pool_max_conns=20",
			"postgres://lectern:***@db/lectern?application_name=lectern%20api&PASSWORD=***&pool_max_conns=20", []string{"hunter2", "hunter3"}},
		{"token-like query names", "postgres://db/lectern?application_name=x&authtoken=hunter2",
			"postgres://db/lectern?application_name=x&authtoken=***", []string{"hunter2"}},
		{"s3 secret", "s3://bucket?endpoint=http://s3:9000&secret_access_key=hunter2&region=us-east-1",
			"s3://bucket?endpoint=http://s3:9000&secret_access_key=***&region=us-east-1", []string{"hunter2"}},
		{"s3 user info: an access key", "s3://AKIDUSER:hunter2@bucket/prefix?region=x",
			"s3://***@bucket/prefix?region=x", []string{"AKIDUSER", "hunter2"}},
		{"s3 endpoint holding credentials", "s3://bucket?endpoint=http://minio:hunter2@s3:9000&region=x",
			"s3://bucket?endpoint=http://minio:***@s3:9000&region=x", []string{"hunter2"}},
		{"https user and token", "https://ci:ghp_hunter2@git.example/docs.git",
			"https://ci:***@git.example/docs.git", []string{"ghp_hunter2"}},
		{"https lone user name: often a token", "https://ghp_hunter2@git.example/docs.git",
			"https://***@git.example/docs.git", []string{"ghp_hunter2"}},
		{"signed link", "https://h/b.tar.gz?X-Amz-Signature=abc123&X-Amz-Expires=60",
			"https://h/b.tar.gz?X-Amz-Signature=***&X-Amz-Expires=60", []string{"abc123"}},
		{"fragment dropped", "https://h/x#access_token=hunter2",
			"https://h/x", []string{"hunter2"}},
		{"file URL unchanged", "file:///var/lib/lectern/blobs",
			"file:///var/lib/lectern/blobs", nil},
		{"sqlite unchanged", "sqlite:///var/lib/lectern/lectern.db",
			"sqlite:///var/lib/lectern/lectern.db", nil},
		{"a path", "/_lectern/assistant", "/_lectern/assistant", nil},
		{"password with '/' does not parse", "postgres://lectern:hun/ter2@db:5432/lectern",
			"(unparseable postgres:// URL)", []string{"hun", "ter2", "lectern"}},
		{"password with '#' does not parse", "postgres://lectern:hun#ter2@db/lectern",
			"(unparseable postgres:// URL)", []string{"hun", "ter2"}},
		{"password of digits then '?' parses as a port", "postgres://lectern:12?ter2@db/lectern?sslmode=disable&password=x3",
			"postgres://***@db/lectern?sslmode=disable&password=***", []string{"12", "ter2", "x3"}},
		{"bad escape", "postgres://lectern:hunter2%zz@db/lectern",
			"(unparseable postgres:// URL)", []string{"hunter2"}},
		{"no scheme, does not parse", "::%zz-hunter2",
			"(unparseable URL)", []string{"zz", "hunter2"}},
		{"a connection string of keywords", "host=db user=lectern password=hunter2 sslmode=require",
			"host=db user=lectern password=*** sslmode=require", []string{"hunter2"}},
		{"keywords with spaces around =", "host=/run/postgresql password = hunter2",
			"host=/run/postgresql password=***", []string{"hunter2"}},
		{"keywords with a quoted value", "host=db password='hunter2 x'",
			"(unparseable connection string)", []string{"hunter2"}},
	} {
		got := lectern.RedactURL(c.in)
		if got != c.want {
			t.Errorf("%s: RedactURL(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
		for _, s := range c.secrets {
			if strings.Contains(got, s) {
				t.Errorf("%s: %q kept in %q", c.name, s, got)
			}
		}
		if strings.Contains(got, "%2A") {
			t.Errorf("%s: %q hides with %%2A", c.name, got)
		}
	}
}

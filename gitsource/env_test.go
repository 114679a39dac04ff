package gitsource

import (
	"strings"
	"testing"
)

// git gets none of the server's secrets from its environment.
func TestEnvLeavesOutServerSecrets(t *testing.T) {
	t.Setenv("LECTERN_SECRET_KEY", "c2VjcmV0")
	t.Setenv("LECTERN_DATABASE_URL", "postgres://u:p@db/lectern")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("GIT_DIR", "/elsewhere")
	t.Setenv("PGPASSWORD", "pg-secret")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/etc/gcp-secret.json")
	t.Setenv("HTTPS_PROXY", "http://proxy.test:3128")
	r := &runner{git: "git", home: t.TempDir(), src: &source{}}
	env := strings.Join(r.env(), "\n")
	for _, bad := range []string{"c2VjcmV0", "u:p@db", "aws-secret", "/elsewhere", "pg-secret", "gcp-secret"} {
		if strings.Contains(env, bad) {
			t.Errorf("git's environment holds %q:\n%s", bad, env)
		}
	}
	for _, want := range []string{"PATH=", "HTTPS_PROXY=http://proxy.test:3128"} {
		if !strings.Contains(env, want) {
			t.Errorf("git's environment lost %s:\n%s", want, env)
		}
	}
}

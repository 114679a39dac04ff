package lectern_test

import (
	"strings"
	"testing"

	"lectern.dev/lectern"
)

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for in, secret := range map[string]string{
		"postgres://lectern:hunter2@db:5432/lectern":                 "hunter2",
		"postgres://db/lectern?sslmode=require&password=hunter2":     "hunter2",
		"s3://bucket?endpoint=http://s3&secret_access_key=hunter2":   "hunter2",
		"https://ci:ghp_hunter2@git.example/docs.git":                "ghp_hunter2",
		"postgres://db/lectern?application_name=x&authtoken=hunter2": "hunter2",
	} {
		out := lectern.RedactURL(in)
		if strings.Contains(out, secret) {
			t.Errorf("%q: secret kept in %q", in, out)
		}
	}
	if out := lectern.RedactURL("postgres://db/lectern?sslmode=require"); !strings.Contains(out, "sslmode=require") {
		t.Errorf("harmless setting hidden: %q", out)
	}
	if out := lectern.RedactURL("::%zz"); strings.Contains(out, "zz") {
		t.Errorf("unparseable URL repeated: %q", out)
	}
}

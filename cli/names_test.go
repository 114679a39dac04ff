package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"lectern.dev/lectern/cli"
)

// TestAdminNamesChecked: admin org create and rename, and project create
// and update, refuse a name with a control character or over 200
// characters, as the API's PATCH does, saying which flag, and change
// nothing.
func TestAdminNamesChecked(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	admin := func(args ...string) error {
		var out, errb bytes.Buffer
		return cli.Run(context.Background(), append([]string{"admin", "--data-dir", data}, args...), noEnv, strings.NewReader(""), &out, &errb)
	}
	long := strings.Repeat("n", 201)
	if err := admin("org", "create", "--name", "Bad\x1b[31mName"); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("org create with an escape sequence: %v, want an error naming --name", err)
	}
	org := lastLine(lectern(t, "admin", "--data-dir", data, "org", "create", "--name", "Acme"))
	if err := admin("org", "rename", org, long); err == nil || !strings.Contains(err.Error(), "200 characters") {
		t.Errorf("org rename to 201 characters: %v, want an error", err)
	}
	create := []string{"project", "create", "--org", org, "--repo", "/r", "--domain", "docs.acme.test", "--name"}
	if err := admin(append(create, long)...); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("project create with a 201-character name: %v, want an error naming --name", err)
	}
	prj := lastLine(lectern(t, append([]string{"admin", "--data-dir", data}, append(create, "Docs")...)...))
	if err := admin("project", "update", prj, "--name", "line\nbreak"); err == nil || !strings.Contains(err.Error(), "--name") {
		t.Errorf("project update with a newline in the name: %v, want an error naming --name", err)
	}
	orgs := lectern(t, "admin", "--data-dir", data, "--json", "org", "list")
	projects := lectern(t, "admin", "--data-dir", data, "--json", "project", "list")
	if strings.Count(orgs, `"id"`) != 1 || !strings.Contains(orgs, `"Acme"`) || strings.Count(projects, `"id"`) != 1 || !strings.Contains(projects, `"Docs"`) {
		t.Errorf("refused names changed the store:\norgs %s\nprojects %s", orgs, projects)
	}
}

// TestListLimitCheckedFirst: every list command refuses a --limit out of
// 1..100 before it makes any request (the API URL here answers nothing).
func TestListLimitCheckedFirst(t *testing.T) {
	t.Parallel()
	env := map[string]string{"LECTERN_API_URL": "http://" + freeAddr(t), "LECTERN_API_KEY": "lk_test"}
	for _, cmd := range [][]string{
		{"project", "list"}, {"project", "updates", "prj_x"}, {"project", "deployments", "prj_x"},
		{"export", "list"}, {"webhook", "list"}, {"webhook", "deliveries", "whk_x"},
	} {
		for _, limit := range []string{"0", "101"} {
			var out, errb bytes.Buffer
			args := append(append([]string{}, cmd...), "--limit", limit)
			err := cli.Run(context.Background(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
			if err == nil || !strings.Contains(err.Error(), "--limit "+limit+": give 1 to 100") {
				t.Errorf("%s: %v, want the --limit error before any request", strings.Join(args, " "), err)
			}
		}
	}
}

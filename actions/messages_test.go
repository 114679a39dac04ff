package actions_test

import (
	"context"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
)

// TestMessagesSayWhatToDo: a refusal names what to do next (issue 20):
// the plan's command, when the next export may start and which setting
// raises the limit, and which project holds a domain.
func TestMessagesSayWhatToDo(t *testing.T) {
	f := newOpsFixture(t)
	ctx := context.Background()

	_, err := f.ops.StartExport(ctx, f.acme.ID, "docs.acme.test", "")
	if msg := lectern.ErrorMessage(err); !strings.Contains(msg, "lectern admin org set-plan "+f.acme.ID+" --plan enterprise") {
		t.Errorf("plan refusal: %q, want the command that changes the plan", msg)
	}

	f.ops.ExportsPerHour = 1
	if _, err := f.ops.StartExport(ctx, f.big.ID, "docs.big.test", ""); err != nil {
		t.Fatal(err)
	}
	second := f.project(t, f.big, "api.big.test")
	_, err = f.ops.StartExport(ctx, f.big.ID, second.Domains[0], "")
	msg := lectern.ErrorMessage(err)
	if lectern.ErrorCode(err) != lectern.ERATELIMITED || !strings.Contains(msg, "--exports-per-hour") ||
		!strings.Contains(msg, "next may start in") || !strings.Contains(msg, "UTC") {
		t.Errorf("quota refusal: %v, want when the next may start and the setting", err)
	}

	// A domain of the organization's own project names it; another
	// organization's project is not named.
	mine := f.project(t, f.acme, "guide.acme.test")
	_, err = f.ops.UpdateProject(ctx, f.acme.ID, f.acmeProj.ID, actions.ProjectPatch{Domains: &[]string{"guide.acme.test"}})
	msg = lectern.ErrorMessage(err)
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(msg, mine.Name) || !strings.Contains(msg, mine.ID) {
		t.Errorf("own domain taken: %v, want the project that holds it named", err)
	}
	_, err = f.ops.CreateProject(ctx, f.acme.ID, actions.NewProject{Name: "Copy", RepoURL: "https://git.example.com/x.git",
		Domains: []string{"new.acme.test", "docs.big.test"}})
	msg = lectern.ErrorMessage(err)
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(msg, "docs.big.test") || !strings.Contains(msg, "another organization") ||
		strings.Contains(msg, f.bigProj.Name) || strings.Contains(msg, f.bigProj.ID) {
		t.Errorf("another organization's domain: %v, want it said without naming the project", err)
	}
}

package client_test

import (
	"errors"
	"testing"

	"lectern.dev/lectern/client"
)

// TestProjectLifecycle: through the client, against a real server: list
// and read the tenant's projects, change one, read its history, find its
// export again, delete it; another tenant's project is not_found.
func TestProjectLifecycle(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "enterprise", f.good, true, "life")
	other := f.tenant(t, "pro", f.good, false, "other")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)

	ps, err := c.Projects(ctx, client.ListOptions{Limit: 5})
	if err != nil || len(ps.Items) != 1 || ps.Items[0].ID != tn.project || ps.NextCursor != nil {
		t.Fatalf("Projects: %+v, %v", ps, err)
	}
	p, err := c.Project(ctx, tn.project)
	if err != nil || p.LiveDeployment == nil || !p.LiveDeployment.Live || p.LiveDeployment.PageCount != 2 || p.LiveDeploymentID != p.LiveDeployment.ID {
		t.Fatalf("Project: %+v, %v", p, err)
	}
	name, branch := "Handbook", "main"
	p, err = c.UpdateProject(ctx, tn.project, client.ProjectPatch{Name: &name, Branch: &branch, Domains: append(tn.domains, "www-"+tn.domains[0])})
	if err != nil || p.Name != name || len(p.Domains) != 2 {
		t.Fatalf("UpdateProject: %+v, %v", p, err)
	}
	_, err = c.UpdateProject(ctx, tn.project, client.ProjectPatch{Domains: other.domains})
	var e *client.Error
	if !errors.As(err, &e) || e.Code != client.CodeConflict {
		t.Fatalf("UpdateProject with another project's domain: %v, want a conflict", err)
	}
	deps, err := c.Deployments(ctx, tn.project, client.ListOptions{})
	if err != nil || len(deps.Items) != 1 || !deps.Items[0].Live {
		t.Fatalf("Deployments: %+v, %v", deps, err)
	}
	ups, err := c.Updates(ctx, tn.project, client.ListOptions{Limit: 1})
	if err != nil || len(ups.Items) != 1 || ups.Items[0].Status != client.UpdateSuccess || ups.NextCursor != nil {
		t.Fatalf("Updates: %+v, %v", ups, err)
	}
	job, err := c.StartExport(ctx, tn.domains[0], "")
	if err != nil {
		t.Fatal(err)
	}
	found, err := c.Exports(ctx, client.ExportListOptions{Domain: tn.domains[0]})
	if err != nil || len(found.Items) != 1 || found.Items[0].JobID != job.JobID {
		t.Fatalf("Exports: %+v, %v", found, err)
	}
	if _, err := c.Project(ctx, other.project); !errors.As(err, &e) || e.Code != client.CodeNotFound {
		t.Fatalf("Project of another tenant: %v, want not_found", err)
	}
	if err := c.DeleteProject(ctx, other.project); !errors.As(err, &e) || e.Code != client.CodeNotFound {
		t.Fatalf("DeleteProject of another tenant: %v, want not_found", err)
	}
	if err := c.DeleteProject(ctx, tn.project); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Project(ctx, tn.project); !errors.As(err, &e) || e.Code != client.CodeNotFound {
		t.Fatalf("Project after DeleteProject: %v, want not_found", err)
	}
	if ps, err := c.Projects(ctx, client.ListOptions{}); err != nil || len(ps.Items) != 0 {
		t.Fatalf("Projects after DeleteProject: %+v, %v", ps, err)
	}
}

// TestCancelAndPromote: through the client, against a real server: an
// export canceled while queued ends canceled and has no bundle; an
// update that has ended cannot be canceled; the live deployment can be
// promoted again, recorded in the history.
func TestCancelAndPromote(t *testing.T) {
	t.Parallel()
	f := startServer(t)
	tn := f.tenant(t, "enterprise", f.good, true, "cancel")
	c := newClient(t, f.url, tn.key)
	ctx := testContext(t)
	job, err := c.StartExport(ctx, tn.domains[0], "")
	if err != nil {
		t.Fatal(err)
	}
	j, err := c.CancelExport(ctx, job.JobID)
	var e *client.Error
	switch {
	case err == nil && (j.Status != client.ExportCanceled || j.Error == nil || j.Error.Code != "canceled"):
		t.Fatalf("CancelExport: %+v", j)
	case err != nil && !(errors.As(err, &e) && e.Code == client.CodeConflict): // it may have ended first
		t.Fatalf("CancelExport: %v", err)
	}
	ups, err := c.Updates(ctx, tn.project, client.ListOptions{})
	if err != nil || len(ups.Items) == 0 {
		t.Fatalf("Updates: %+v, %v", ups, err)
	}
	if _, err := c.CancelUpdate(ctx, ups.Items[0].StatusID); !errors.As(err, &e) || e.Code != client.CodeConflict {
		t.Fatalf("CancelUpdate of an ended update: %v, want a conflict", err)
	}
	p, err := c.Project(ctx, tn.project)
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.PromoteDeployment(ctx, tn.project, p.LiveDeploymentID)
	if err != nil || u.Status != client.UpdateSuccess || u.Source != "promote" {
		t.Fatalf("PromoteDeployment: %+v, %v", u, err)
	}
	if again, err := c.UpdateStatus(ctx, u.StatusID); err != nil || again.StatusID != u.StatusID {
		t.Fatalf("UpdateStatus of the promotion: %+v, %v", again, err)
	}
}

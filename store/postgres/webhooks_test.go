package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestWebhookRaces races DeleteWebhook with the changes that store
// deliveries for the webhook (FinishUpdate, CancelExport, DeleteProject)
// and with a worker recording an attempt of one of its deliveries: none of
// them deadlocks (EUNAVAILABLE); afterwards no delivery of the deleted
// webhook is pending, every delivery is pending exactly while its job is
// not done, and a webhook that is not deleted got one delivery per change.
func TestWebhookRaces(t *testing.T) {
	pgtest.BaseURL(t)
	ctx := t.Context()
	dsn := pgtest.URL(t)
	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	org := &lectern.Organization{Name: "race", Plan: lectern.PlanFree}
	if err := s.CreateOrg(ctx, org); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	claim := func(t *testing.T, kind, id string) store.Lease {
		for {
			j, l, err := s.ClaimJob(ctx, store.ClaimParams{Kinds: []string{kind}, Owner: "w", Now: time.Now(), LeaseFor: time.Hour})
			if err != nil || j == nil {
				t.Fatalf("ClaimJob %s: %v, %v", kind, j, err)
			}
			if j.ID == id {
				return l
			}
		}
	}
	race(t, 30, func(i int) ([]func(), func()) {
		p := &lectern.Project{OrgID: org.ID, Name: "p", RepoURL: "https://example.com/r.git", Branch: "main",
			DeploymentType: lectern.DeploymentCloud, Domains: []string{lectern.NewID("d") + ".example.com"}}
		if err := s.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		w := &lectern.Webhook{OrgID: org.ID, URL: "https://example.com/hook", Events: lectern.Events, Secret: "s"}
		// other takes every event but update.canceled, so that the
		// delivery claimed below is w's.
		other := &lectern.Webhook{OrgID: org.ID, URL: "https://example.com/other", Secret: "s",
			Events: []lectern.Event{lectern.EventUpdateFailed, lectern.EventExportCanceled}}
		for _, h := range []*lectern.Webhook{w, other} {
			if err := s.CreateWebhook(ctx, h, 0); err != nil {
				t.Fatal(err)
			}
		}
		first := &lectern.Update{ProjectID: p.ID, Source: "api"}
		if err := s.CreateUpdate(ctx, first); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CancelUpdate(ctx, first.ID, t0); err != nil {
			t.Fatal(err)
		}
		sent, err := s.ListDeliveries(ctx, w.ID, store.Page{})
		if err != nil || len(sent) != 1 {
			t.Fatalf("ListDeliveries after a cancel: %v, %v", sent, err)
		}
		dl := claim(t, store.KindWebhook, sent[0].ID)
		u := &lectern.Update{ProjectID: p.ID, Source: "api"}
		if err := s.CreateUpdate(ctx, u); err != nil {
			t.Fatal(err)
		}
		ul := claim(t, store.KindUpdate, u.ID)
		x := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: p.Domains[0]}
		if err := s.CreateExport(ctx, x, store.ExportQuota{}); err != nil {
			t.Fatal(err)
		}
		next := time.Time{}
		if i%2 == 0 {
			next = t0.Add(time.Hour)
		}
		fns := []func(){
			func() { okOr(t, "DeleteWebhook", s.DeleteWebhook(ctx, w.ID, t0.Add(time.Second))) },
			func() {
				okOr(t, "FinishUpdate", s.FinishUpdate(ctx, ul, store.UpdateResult{Status: lectern.UpdateFailure, EndedAt: t0}),
					lectern.ECONFLICT)
			},
			func() {
				_, err := s.CancelExport(ctx, x.ID, t0)
				okOr(t, "CancelExport", err, lectern.ECONFLICT)
			},
			func() {
				okOr(t, "RecordAttempt", s.RecordAttempt(ctx, dl, lectern.DeliveryAttempt{At: t0, StatusCode: 500}, next),
					lectern.ECONFLICT)
			},
		}
		if i%3 == 0 {
			fns = append(fns, func() { okOr(t, "DeleteProject", s.DeleteProject(ctx, p.ID, t0)) })
		}
		return fns, func() {
			if _, err := s.GetWebhook(ctx, w.ID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
				t.Errorf("GetWebhook of a deleted webhook: %v", err)
			}
			ds, err := s.ListDeliveries(ctx, w.ID, store.Page{})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range ds {
				if d.Status == lectern.DeliveryPending {
					t.Errorf("delivery %s of a deleted webhook is pending", d.ID)
				}
			}
			var bad int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries d LEFT JOIN jobs j ON j.id = d.id
				WHERE j.id IS NULL OR (d.status = 'pending') <> (j.state <> 'done')`).Scan(&bad); err != nil {
				t.Fatal(err)
			}
			if bad > 0 {
				t.Errorf("%d deliveries whose job disagrees with their status", bad)
			}
			gotU, err := s.GetUpdate(ctx, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			gotX, err := s.GetExport(ctx, x.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if gotU.Status == lectern.UpdateFailure {
				want++
			}
			if gotX.Status == lectern.ExportCanceled {
				want++
			}
			od, err := s.ListDeliveries(ctx, other.ID, store.Page{})
			if err != nil {
				t.Fatal(err)
			}
			if len(od) != want {
				t.Errorf("the other webhook has %d deliveries, want %d (update %s, export %s)", len(od), want, gotU.Status, gotX.Status)
			}
			if len(ds) > 3 {
				t.Errorf("the deleted webhook has %d deliveries", len(ds))
			}
			okOr(t, "DeleteWebhook other", s.DeleteWebhook(ctx, other.ID, t0))
			if i%3 != 0 {
				okOr(t, "DeleteProject", s.DeleteProject(ctx, p.ID, t0))
			}
		}
	})
}

package postgres_test

import (
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/postgres"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// openStore opens a store on a fresh test database.
func openStore(t *testing.T) *postgres.Store {
	t.Helper()
	pgtest.BaseURL(t)
	s, err := postgres.Open(t.Context(), pgtest.URL(t))
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// okOr fails the test unless err is nil or a lectern error with one of
// the codes; a deadlock would be EUNAVAILABLE.
func okOr(t *testing.T, what string, err error, codes ...string) {
	t.Helper()
	if err == nil {
		return
	}
	for _, c := range codes {
		if lectern.ErrorCode(err) == c {
			return
		}
	}
	t.Errorf("%s: %v (code %s)", what, err, lectern.ErrorCode(err))
}

// race runs fns at once, many times over fresh records made by setup, and
// then check.
func race(t *testing.T, rounds int, setup func(i int) (fns []func(), check func())) {
	t.Helper()
	for i := range rounds {
		fns, check := setup(i)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, fn := range fns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				fn()
			}()
		}
		close(start)
		wg.Wait()
		check()
		if t.Failed() {
			return
		}
	}
}

// TestCancelRaces races CancelUpdate and CancelExport with the workers
// finishing the same records and with DeleteProject, and
// PromoteDeployment with FinishUpdate, DeleteProject and DeleteDeployment
// of the same project: none of them deadlocks (EUNAVAILABLE), and the
// records end consistently.
func TestCancelRaces(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	org := &lectern.Organization{Name: "race", Plan: lectern.PlanFree}
	if err := s.CreateOrg(ctx, org); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	newProject := func(t *testing.T) *lectern.Project {
		p := &lectern.Project{OrgID: org.ID, Name: "p", RepoURL: "https://example.com/r.git", Branch: "main",
			DeploymentType: lectern.DeploymentCloud, Domains: []string{lectern.NewID("d") + ".example.com"}}
		if err := s.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
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
	publish := func(t *testing.T, p *lectern.Project) *lectern.Deployment {
		u := &lectern.Update{ProjectID: p.ID, Source: "api"}
		if err := s.CreateUpdate(ctx, u); err != nil {
			t.Fatal(err)
		}
		d := &lectern.Deployment{ProjectID: p.ID, Commit: lectern.Commit{SHA: "abc", Ref: "main", Message: "m"}, PageCount: 1}
		if err := s.FinishUpdate(ctx, claim(t, store.KindUpdate, u.ID), store.UpdateResult{Status: lectern.UpdateSuccess,
			Commit: &d.Commit, Deployment: d, EndedAt: t0}); err != nil {
			t.Fatal(err)
		}
		return d
	}

	t.Run("CancelUpdate", func(t *testing.T) {
		race(t, 20, func(int) ([]func(), func()) {
			p := newProject(t)
			old := publish(t, p)
			u := &lectern.Update{ProjectID: p.ID, Source: "api"}
			if err := s.CreateUpdate(ctx, u); err != nil {
				t.Fatal(err)
			}
			l := claim(t, store.KindUpdate, u.ID)
			if err := s.StartUpdate(ctx, l, t0); err != nil {
				t.Fatal(err)
			}
			d := &lectern.Deployment{ProjectID: p.ID, Commit: lectern.Commit{SHA: "def"}, PageCount: 1}
			var finishErr, cancelErr error
			return []func(){
					func() {
						finishErr = s.FinishUpdate(ctx, l, store.UpdateResult{Status: lectern.UpdateSuccess, Deployment: d, EndedAt: t0})
						okOr(t, "FinishUpdate", finishErr, lectern.ECONFLICT)
					},
					func() {
						_, cancelErr = s.CancelUpdate(ctx, u.ID, t0)
						okOr(t, "CancelUpdate", cancelErr, lectern.ECONFLICT, lectern.ENOTFOUND)
					},
					func() { okOr(t, "ExtendLease", s.ExtendLease(ctx, l, t0.Add(time.Hour)), lectern.ECONFLICT) },
					func() { okOr(t, "DeleteProject", s.DeleteProject(ctx, p.ID, t0)) },
					func() {
						okOr(t, "PromoteDeployment", s.PromoteDeployment(ctx, p.ID, old.ID, &lectern.Update{Source: "api"}, t0),
							lectern.ENOTFOUND)
					},
					func() { okOr(t, "DeleteDeployment", s.DeleteDeployment(ctx, old.ID), lectern.ECONFLICT) },
				}, func() {
					got, err := s.GetUpdate(ctx, u.ID)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case finishErr == nil && cancelErr == nil:
						t.Errorf("FinishUpdate and CancelUpdate both succeeded")
					case finishErr == nil && got.Status != lectern.UpdateSuccess:
						t.Errorf("finished update is %s", got.Status)
					case finishErr != nil && got.Status != lectern.UpdateCanceled:
						t.Errorf("update whose worker lost its lease is %s", got.Status)
					case cancelErr == nil && got.Summary != store.CanceledByRequest:
						t.Errorf("update canceled on request has the summary %q", got.Summary)
					}
				}
		})
	})

	t.Run("CancelExport", func(t *testing.T) {
		race(t, 20, func(int) ([]func(), func()) {
			p := newProject(t)
			e := &lectern.ExportJob{OrgID: org.ID, ProjectID: p.ID, Domain: p.Domains[0]}
			if err := s.CreateExport(ctx, e, store.ExportQuota{}); err != nil {
				t.Fatal(err)
			}
			l := claim(t, store.KindExport, e.ID)
			if err := s.SetExportProgress(ctx, l, 10, 1, t0); err != nil {
				t.Fatal(err)
			}
			var cancelErr, finishErr error
			return []func(){
					func() {
						finishErr = s.FinishExport(ctx, l, store.ExportResult{Status: lectern.ExportCompleted, PageCount: 1,
							Bundle: &lectern.Bundle{Key: "k", FileName: "f.zip"}, At: t0})
						okOr(t, "FinishExport", finishErr, lectern.ECONFLICT)
					},
					func() { okOr(t, "SetExportProgress", s.SetExportProgress(ctx, l, 50, 2, t0), lectern.ECONFLICT) },
					func() {
						_, cancelErr = s.CancelExport(ctx, e.ID, t0)
						okOr(t, "CancelExport", cancelErr, lectern.ECONFLICT)
					},
					func() { okOr(t, "DeleteProject", s.DeleteProject(ctx, p.ID, t0)) },
				}, func() {
					got, err := s.GetExport(ctx, e.ID)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case finishErr == nil && cancelErr == nil:
						t.Errorf("FinishExport and CancelExport both succeeded")
					case finishErr == nil && (got.Status != lectern.ExportCompleted || got.Bundle == nil):
						t.Errorf("finished export is %s", got.Status)
					case finishErr != nil && (got.Status != lectern.ExportCanceled || got.Bundle != nil):
						t.Errorf("export whose worker lost its lease is %s", got.Status)
					case cancelErr == nil && (got.Error == nil || got.Error.Message != store.CanceledByRequest):
						t.Errorf("export canceled on request has the error %+v", got.Error)
					}
				}
		})
	})

	t.Run("PromoteDeleteDeployment", func(t *testing.T) {
		for range 20 {
			p := newProject(t)
			a := publish(t, p)
			b := publish(t, p) // live
			var promoteErr, deleteErr error
			race(t, 1, func(int) ([]func(), func()) {
				return []func(){
					func() {
						promoteErr = s.PromoteDeployment(ctx, p.ID, a.ID, &lectern.Update{Source: "api"}, t0)
						okOr(t, "PromoteDeployment", promoteErr, lectern.ENOTFOUND)
					},
					func() {
						deleteErr = s.DeleteDeployment(ctx, a.ID)
						okOr(t, "DeleteDeployment", deleteErr, lectern.ECONFLICT)
					},
				}, func() {}
			})
			if (promoteErr == nil) == (deleteErr == nil) {
				t.Fatalf("PromoteDeployment: %v; DeleteDeployment: %v: exactly one should win", promoteErr, deleteErr)
			}
			got, err := s.GetProject(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := b.ID
			if promoteErr == nil {
				want = a.ID
			}
			if got.LiveDeploymentID != want {
				t.Fatalf("live deployment %q, want %q", got.LiveDeploymentID, want)
			}
			if _, err := s.GetDeployment(ctx, got.LiveDeploymentID); err != nil {
				t.Fatalf("the live deployment: %v", err)
			}
		}
	})
}

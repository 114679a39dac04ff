package jobs_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/blobstore/blobtest"
	"lectern.dev/lectern/jobs"
	"lectern.dev/lectern/store"
)

// TestJanitorCollectsDeletedProjects: a deleted project's files and
// records are kept for DeletedGrace, then collected, files first; its
// organization, deleted too, goes once no project names it. A live
// project beside it keeps everything.
func TestJanitorCollectsDeletedProjects(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	b := blobtest.Folder(t)
	dead := newProject(t, st)
	alive := newProject(t, st)
	depDead := publish(t, st, dead, time.Now().Add(-2*time.Hour))
	depAlive := publish(t, st, alive, time.Now().Add(-2*time.Hour))
	deadFiles := []string{blobstore.SiteKey(dead.ID, depDead.ID, "index.html"), blobstore.SourceKey(dead.ID, depDead.ID),
		blobstore.SiteKey(dead.ID, idAt(lectern.PrefixDeployment, time.Now()), "half-published.html")}
	aliveFile := blobstore.SiteKey(alive.ID, depAlive.ID, "index.html")
	for _, k := range append(deadFiles, aliveFile) {
		writeBlob(t, b, k)
	}
	must(t, st.DeleteProject(t.Context(), dead.ID, time.Now()), "DeleteProject")
	must(t, st.DeleteOrg(t.Context(), dead.OrgID, time.Now()), "DeleteOrg")

	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: b}
	must(t, j.RunOnce(t.Context()), "RunOnce (default grace)")
	for _, k := range deadFiles {
		if !blobExists(t, b, k) {
			t.Errorf("%s was collected within the grace period", k)
		}
	}
	if !deploymentExists(t, st, depDead.ID) {
		t.Errorf("the deleted project's deployment record went within the grace period")
	}

	j.DeletedGrace = time.Nanosecond
	must(t, j.RunOnce(t.Context()), "RunOnce")
	for _, k := range deadFiles {
		if blobExists(t, b, k) {
			t.Errorf("%s of the deleted project is still there", k)
		}
	}
	if deploymentExists(t, st, depDead.ID) {
		t.Errorf("the deleted project's deployment record is still there")
	}
	if _, err := st.GetUpdate(t.Context(), depDead.UpdateID); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("the deleted project's update: %v, want not_found", err)
	}
	if orgs, err := st.ListDeletedOrgs(t.Context(), time.Now().Add(time.Hour), 10); err != nil || len(orgs) != 0 {
		t.Errorf("deleted organizations left: %v, %v", orgs, err)
	}
	if !blobExists(t, b, aliveFile) || !deploymentExists(t, st, depAlive.ID) {
		t.Errorf("the live project lost its deployment")
	}
}

// TestJanitorPrunesDeliveries: deliveries that ended longer ago than the
// retention go; a recent one stays.
func TestJanitorPrunesDeliveries(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	w := &lectern.Webhook{OrgID: p.OrgID, URL: "https://hooks.example.com/x", Events: []lectern.Event{lectern.EventUpdateCanceled}, Secret: "sealed"}
	must(t, st.CreateWebhook(t.Context(), w, 0), "CreateWebhook")
	deliver := func(at time.Time) string {
		u := &lectern.Update{ProjectID: p.ID, Source: "api"}
		must(t, st.CreateUpdate(t.Context(), u), "CreateUpdate")
		_, err := st.CancelUpdate(t.Context(), u.ID, at)
		must(t, err, "CancelUpdate")
		ds, err := st.ListDeliveries(t.Context(), w.ID, store.Page{Limit: 1})
		must(t, err, "ListDeliveries")
		_, l := claimID(t, st, store.KindWebhook, ds[0].ID, "sender", time.Now(), time.Minute)
		must(t, st.RecordAttempt(t.Context(), l, lectern.DeliveryAttempt{At: at, StatusCode: 200}, time.Time{}), "RecordAttempt")
		return ds[0].ID
	}
	old, recent := deliver(time.Now().Add(-48*time.Hour)), deliver(time.Now().Add(-time.Hour))
	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: blobtest.Folder(t), Retention: 24 * time.Hour}
	must(t, j.RunOnce(t.Context()), "RunOnce")
	if _, err := st.GetDelivery(t.Context(), old); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("the delivery that ended two days ago: %v, want it pruned", err)
	}
	if _, err := st.GetDelivery(t.Context(), recent); err != nil {
		t.Errorf("the delivery that ended an hour ago: %v", err)
	}
}

// TestJanitorPrunesAssistantMessages: questions asked longer ago than
// AssistantRetention go; a recent one stays.
func TestJanitorPrunesAssistantMessages(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	ask := func(at time.Time) string {
		m := &lectern.AssistantMessage{ProjectID: p.ID, Source: lectern.AssistantFromSite, Question: "How?", Answer: "So.", CreatedAt: at}
		must(t, st.RecordAssistantMessage(t.Context(), m), "RecordAssistantMessage")
		return m.ID
	}
	ask(time.Now().Add(-10 * 24 * time.Hour))
	recent := ask(time.Now().Add(-time.Hour))
	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: blobtest.Folder(t), AssistantRetention: 7 * 24 * time.Hour}
	must(t, j.RunOnce(t.Context()), "RunOnce")
	ms, err := st.ListAssistantMessages(t.Context(), p.ID, store.AssistantFilter{}, store.Page{})
	must(t, err, "ListAssistantMessages")
	if len(ms) != 1 || ms[0].ID != recent {
		t.Errorf("left %d messages, want only the recent one", len(ms))
	}
}

// TestJanitorPrunesAnalytics: raw events older than AnalyticsRetention
// go (their comments with them), the daily aggregates stay until
// AnalyticsAggregateRetention.
func TestJanitorPrunesAnalytics(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	yes := true
	at := time.Now().UTC().Add(-10 * 24 * time.Hour)
	must(t, st.RecordAnalytics(t.Context(), []lectern.AnalyticsEvent{{ProjectID: p.ID, At: at, Kind: lectern.AnalyticsFeedback, Path: "/a",
		Visitor: strings.Repeat("ab", 16), Helpful: &yes, Comment: "clear"}}), "RecordAnalytics")
	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: blobtest.Folder(t), AnalyticsRetention: 7 * 24 * time.Hour}
	must(t, j.RunOnce(t.Context()), "RunOnce")
	cs, err := st.ListAnalyticsComments(t.Context(), p.ID, time.Time{}, time.Time{}, store.Page{})
	must(t, err, "ListAnalyticsComments")
	days, err := st.AnalyticsDaily(t.Context(), p.ID, lectern.AnalyticsFeedback, at.Add(-24*time.Hour), time.Now())
	must(t, err, "AnalyticsDaily")
	if len(cs) != 0 || len(days) != 1 || days[0].Yes != 1 {
		t.Errorf("after pruning: %d comments (want 0), days %+v (want the aggregate kept)", len(cs), days)
	}
}

// TestJanitorPrunesSessions: expired dashboard sessions go, live ones stay.
func TestJanitorPrunesSessions(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	p := newProject(t, st)
	u := &lectern.User{OrgID: p.OrgID, Email: "docs@acme.test", Role: lectern.RoleOwner}
	must(t, st.CreateUser(t.Context(), u), "CreateUser")
	now := time.Now()
	old, live := lectern.NewSessionToken(), lectern.NewSessionToken()
	for tok, exp := range map[string]time.Time{old: now.Add(-time.Minute), live: now.Add(time.Hour)} {
		s := &lectern.Session{Hash: lectern.HashToken(tok), UserID: u.ID, OrgID: u.OrgID, CSRF: lectern.NewCSRFToken(),
			CreatedAt: now.Add(-2 * time.Hour), LastSeenAt: now.Add(-2 * time.Hour), ExpiresAt: exp}
		must(t, st.CreateSession(t.Context(), s), "CreateSession")
	}
	j := &jobs.Janitor{Log: slog.New(slog.DiscardHandler), Store: st, Bucket: blobtest.Folder(t)}
	must(t, j.RunOnce(t.Context()), "RunOnce")
	if n, err := st.PruneSessions(t.Context(), now.Add(-30*time.Second)); err != nil || n != 0 {
		t.Errorf("an expired session was left: %d, %v", n, err)
	}
	if _, err := st.GetSessionByHash(t.Context(), lectern.HashToken(live), now); err != nil {
		t.Errorf("the live session: %v", err)
	}
}

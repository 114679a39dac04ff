package storetest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var assistantCases = []testCase{
	{"RecordAndList", testAssistantRecordAndList},
	{"RecordRefused", testAssistantRecordRefused},
	{"Feedback", testAssistantFeedback},
	{"Paging", testAssistantPaging},
	{"Window", testAssistantWindow},
	{"Isolation", testAssistantIsolation},
	{"DeletedProject", testAssistantDeletedProject},
	{"RacesDeleteAndPurge", testAssistantRacesPurge},
	{"Retention", testAssistantRetention},
	{"Bounds", testAssistantBounds},
}

// fmtAssistantMessage formats every field of a message, times at
// microseconds; nil and empty citations differ.
func fmtAssistantMessage(m *lectern.AssistantMessage) string {
	if m == nil {
		return "<nil>"
	}
	helpful := "nil"
	if m.Helpful != nil {
		helpful = strconv.FormatBool(*m.Helpful)
	}
	return fmt.Sprintf("{ID:%s OrgID:%s ProjectID:%s Domain:%q Source:%q Question:%q Answer:%q Citations:%#v Found:%t Model:%q Helpful:%s CreatedAt:%s}",
		m.ID, m.OrgID, m.ProjectID, m.Domain, m.Source, m.Question, m.Answer, m.Citations, m.Found, m.Model, helpful, fmtTime(&m.CreatedAt))
}

func wantSameAssistantMessage(t *testing.T, what string, got, want *lectern.AssistantMessage) {
	t.Helper()
	if g, w := fmtAssistantMessage(got), fmtAssistantMessage(want); g != w {
		t.Errorf("%s:\n got  %s\n want %s", what, g, w)
	}
}

// newAsk records a message of p, answered from the docs with one
// citation, after change (when not nil) edits it; it returns the message
// as RecordAssistantMessage left it.
func newAsk(t *testing.T, s store.Store, p *lectern.Project, change func(*lectern.AssistantMessage)) *lectern.AssistantMessage {
	t.Helper()
	m := &lectern.AssistantMessage{ProjectID: p.ID, Domain: p.Domains[0], Source: lectern.AssistantFromSite,
		Question: "How do I deploy " + unique() + "?", Answer: "Run `lectern deploy` [1].",
		Citations: []lectern.AssistantCitation{{Title: "Deploying", URL: "/guides/deploy#run"}}, Found: true}
	if change != nil {
		change(m)
	}
	must(t, s.RecordAssistantMessage(t.Context(), m), "RecordAssistantMessage")
	return m
}

// askAt records a message of p with the ID and creation time of r.
func askAt(t *testing.T, s store.Store, p *lectern.Project, r rec) *lectern.AssistantMessage {
	t.Helper()
	return newAsk(t, s, p, func(m *lectern.AssistantMessage) { m.ID, m.CreatedAt = r.ID, r.At })
}

// listAsks returns ListAssistantMessages(projectID, f) in full.
func listAsks(t *testing.T, s store.Store, projectID string, f store.AssistantFilter) []*lectern.AssistantMessage {
	t.Helper()
	ms, err := s.ListAssistantMessages(t.Context(), projectID, f, store.Page{})
	must(t, err, "ListAssistantMessages")
	return ms
}

// wantAsks fails the test unless the project's whole list is want, every
// field alike, in order.
func wantAsks(t *testing.T, s store.Store, what, projectID string, want ...*lectern.AssistantMessage) {
	t.Helper()
	got := listAsks(t, s, projectID, store.AssistantFilter{})
	if len(got) != len(want) {
		var ids []string
		for _, m := range got {
			ids = append(ids, m.ID)
		}
		t.Errorf("%s: ListAssistantMessages(%s) = %d messages %v, want %d", what, projectID, len(got), ids, len(want))
		return
	}
	for i := range want {
		wantSameAssistantMessage(t, fmt.Sprintf("%s: message %d", what, i), got[i], want[i])
	}
}

// wantStored fails the test unless the store holds n messages in all, of
// every project: it drops them (PruneAssistantMessages) to count them.
func wantStored(t *testing.T, s store.Store, what string, n int) {
	t.Helper()
	got, err := s.PruneAssistantMessages(t.Context(), time.Now().UTC().Add(time.Hour), -1)
	must(t, err, "PruneAssistantMessages")
	if got != n {
		t.Errorf("%s: the store held %d messages, want %d", what, got, n)
	}
}

// testAssistantRecordAndList: RecordAssistantMessage sets the ID, the
// creation time (when zero) and the organization, keeps a given ID and
// time (at microseconds), and ListAssistantMessages returns every field
// as recorded, citations in order, newest first.
func testAssistantRecordAndList(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org.ID)
	before := us(time.Now().UTC())
	m1 := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.Question = "Wie installiere ich die CLI? ✓"
		m.Answer = "Install it with **brew** [1], or from source [2].\n\n```sh\nmake install\n```"
		m.Citations = []lectern.AssistantCitation{
			{Title: "Installation — macOS", URL: "https://docs.example.com/install?os=mac#brew"},
			{Title: "Building from source", URL: "/install/source#make"},
		}
	})
	after := us(time.Now().UTC())
	if !lectern.ValidID(lectern.PrefixAssistantMessage, m1.ID) {
		t.Errorf("RecordAssistantMessage set ID %q, want an %s ID", m1.ID, lectern.PrefixAssistantMessage)
	}
	if m1.OrgID != org.ID {
		t.Errorf("RecordAssistantMessage set OrgID %q, want the project's %s", m1.OrgID, org.ID)
	}
	if m1.CreatedAt.Before(before) || m1.CreatedAt.After(after) {
		t.Errorf("RecordAssistantMessage set CreatedAt %v, want between %v and %v", m1.CreatedAt, before, after)
	}

	given := time.Now().Add(-time.Minute).Truncate(time.Second).Add(123456789 * time.Nanosecond)
	m2 := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.OrgID, m.Domain, m.Source, m.Found, m.Model = org.ID, "", lectern.AssistantFromAPI, false, "claude-sonnet-4"
		m.Answer, m.Citations, m.Helpful, m.CreatedAt = "No answer was found in these docs.", nil, ptr(false), given
	})
	if !m2.CreatedAt.Equal(us(given)) {
		t.Errorf("RecordAssistantMessage left CreatedAt %v, want %v at microseconds", m2.CreatedAt, us(given))
	}
	if m2.Citations == nil {
		t.Error("RecordAssistantMessage left nil Citations, want empty")
	}
	id3 := lectern.NewID(lectern.PrefixAssistantMessage)
	m3 := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.ID, m.Source, m.Helpful, m.CreatedAt = id3, lectern.AssistantFromMCP, ptr(true), given.Add(-time.Minute)
	})
	if m3.ID != id3 {
		t.Errorf("RecordAssistantMessage changed the given ID %s to %s", id3, m3.ID)
	}
	other := newAsk(t, s, q, nil)

	wantAsks(t, s, "project p", p.ID, m1, m2, m3)
	wantAsks(t, s, "project q", q.ID, other)
	wantAsks(t, s, "a missing project", missingID(lectern.PrefixProject))
	wantAsks(t, s, "a project ID with bad bytes", p.ID+"\x00\xff")
}

// testAssistantRecordRefused: a message of a missing or deleted project,
// or of a project of another organization than it names, is ENOTFOUND; one
// without a question or with an unknown source is EINVALID; a taken ID is
// ECONFLICT. None is stored.
func testAssistantRecordRefused(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p, gone := newProject(t, s, org.ID), newProject(t, s, org.ID)
	must(t, s.DeleteProject(t.Context(), gone.ID, time.Now().UTC()), "DeleteProject")
	kept := newAsk(t, s, p, nil)

	for _, c := range []struct {
		what   string
		code   string
		change func(*lectern.AssistantMessage)
	}{
		{"a missing project", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.ProjectID = missingID(lectern.PrefixProject) }},
		{"no project", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.ProjectID = "" }},
		{"a project ID with bad bytes", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.ProjectID = p.ID + "\x00\xff" }},
		{"an organization ID with bad bytes", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.OrgID = org.ID + "\xff" }},
		{"a deleted project", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.ProjectID = gone.ID }},
		{"another organization", lectern.ENOTFOUND, func(m *lectern.AssistantMessage) { m.OrgID = org2.ID }},
		{"an unknown source", lectern.EINVALID, func(m *lectern.AssistantMessage) { m.Source = "email" }},
		{"no source", lectern.EINVALID, func(m *lectern.AssistantMessage) { m.Source = "" }},
		{"a blank question", lectern.EINVALID, func(m *lectern.AssistantMessage) { m.Question = " \n\t" }},
		{"a taken ID", lectern.ECONFLICT, func(m *lectern.AssistantMessage) { m.ID = kept.ID }},
	} {
		m := &lectern.AssistantMessage{ProjectID: p.ID, Source: lectern.AssistantFromAPI, Question: "Why " + unique() + "?", Answer: "Because."}
		c.change(m)
		err := s.RecordAssistantMessage(t.Context(), m)
		wantCode(t, err, c.code, "RecordAssistantMessage of "+c.what)
	}
	wantAsks(t, s, "after refused records", p.ID, kept)
	wantStored(t, s, "after refused records", 1)
}

// assistantMessage returns the message id of the project's list, failing
// the test when it is not there.
func assistantMessage(t *testing.T, s store.Store, projectID, id string) *lectern.AssistantMessage {
	t.Helper()
	for _, m := range listAsks(t, s, projectID, store.AssistantFilter{}) {
		if m.ID == id {
			return m
		}
	}
	t.Fatalf("message %s is not in ListAssistantMessages(%s)", id, projectID)
	return nil
}

// testAssistantFeedback: SetAssistantFeedback records the reader's
// verdict on one message, and a later call replaces it; a message of
// another project (of the same organization or another) or a missing one
// is ENOTFOUND, changing nothing.
func testAssistantFeedback(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p, q, r := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org2.ID)
	a, b, c := newAsk(t, s, p, nil), newAsk(t, s, p, nil), newAsk(t, s, q, nil)
	helpful := func(projectID, id string) string {
		t.Helper()
		if h := assistantMessage(t, s, projectID, id).Helpful; h != nil {
			return strconv.FormatBool(*h)
		}
		return "nil"
	}
	wantHelpful := func(what string, want ...string) {
		t.Helper()
		got := []string{helpful(p.ID, a.ID), helpful(p.ID, b.ID), helpful(q.ID, c.ID)}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: Helpful of a, b, c = %v, want %v", what, got, want)
		}
	}
	wantHelpful("before any feedback", "nil", "nil", "nil")

	for _, step := range []struct {
		helpful bool
		want    string
	}{{true, "true"}, {false, "false"}, {false, "false"}, {true, "true"}} {
		must(t, s.SetAssistantFeedback(t.Context(), p.ID, a.ID, step.helpful), "SetAssistantFeedback")
		wantHelpful(fmt.Sprintf("after SetAssistantFeedback(a, %t)", step.helpful), step.want, "nil", "nil")
	}

	for _, x := range []struct{ what, projectID, id string }{
		{"another project's message", q.ID, a.ID},
		{"the message of another project", p.ID, c.ID},
		{"another organization's project", r.ID, a.ID},
		{"a missing message", p.ID, missingID(lectern.PrefixAssistantMessage)},
		{"a missing project", missingID(lectern.PrefixProject), a.ID},
		{"no project", "", a.ID},
		{"an ID with bad bytes", p.ID, a.ID + "\x00\xff"},
		{"a project ID with bad bytes", p.ID + "\x00\xff", a.ID},
	} {
		err := s.SetAssistantFeedback(t.Context(), x.projectID, x.id, false)
		wantCode(t, err, lectern.ENOTFOUND, "SetAssistantFeedback of "+x.what)
	}
	wantHelpful("after refused feedback", "true", "nil", "nil")

	must(t, s.SetAssistantFeedback(t.Context(), q.ID, c.ID, false), "SetAssistantFeedback(c)")
	wantHelpful("after feedback on c", "true", "nil", "false")
	// The rest of the message is as recorded.
	a.Helpful = ptr(true)
	wantSameAssistantMessage(t, "message a after feedback", assistantMessage(t, s, p.ID, a.ID), a)
}

// testAssistantDeletedProject: a deleted project's messages are gone at
// once (no list, no feedback, no new message) while another project's
// stay, and PurgeProject drops them; the organization can then be purged.
func testAssistantDeletedProject(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p, o, r := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org2.ID)
	a := newAsk(t, s, p, nil)
	newAsk(t, s, p, func(m *lectern.AssistantMessage) { m.Helpful = ptr(true) })
	kept := newAsk(t, s, o, nil)
	newAsk(t, s, r, nil)

	must(t, s.DeleteProject(t.Context(), p.ID, time.Now().UTC()), "DeleteProject")
	wantAsks(t, s, "a deleted project", p.ID)
	err := s.SetAssistantFeedback(t.Context(), p.ID, a.ID, false)
	wantCode(t, err, lectern.ENOTFOUND, "SetAssistantFeedback of a deleted project's message")
	err = s.RecordAssistantMessage(t.Context(), &lectern.AssistantMessage{ProjectID: p.ID, Source: lectern.AssistantFromSite, Question: "Still there?"})
	wantCode(t, err, lectern.ENOTFOUND, "RecordAssistantMessage of a deleted project")
	wantAsks(t, s, "another project after DeleteProject", o.ID, kept)

	must(t, s.PurgeProject(t.Context(), p.ID), "PurgeProject")
	wantAsks(t, s, "another project after PurgeProject", o.ID, kept)

	// A whole organization: its project, then itself.
	must(t, s.DeleteProject(t.Context(), r.ID, time.Now().UTC()), "DeleteProject(r)")
	must(t, s.DeleteOrg(t.Context(), org2.ID, time.Now().UTC()), "DeleteOrg")
	must(t, s.PurgeProject(t.Context(), r.ID), "PurgeProject(r)")
	must(t, s.PurgeOrg(t.Context(), org2.ID), "PurgeOrg")

	wantStored(t, s, "after the purges", 1) // kept
}

// testAssistantRacesPurge races RecordAssistantMessage and
// SetAssistantFeedback with DeleteProject then PurgeProject of the same
// project: both succeed, each record and feedback either came first (nil)
// or saw the project gone (ENOTFOUND), and no message of the projects is
// left behind by their purge.
func testAssistantRacesPurge(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	kept := newAsk(t, s, newProject(t, s, org.ID), nil)
	type work struct {
		p       *lectern.Project
		old     *lectern.AssistantMessage
		delErr  error
		fbErr   error
		recErrs []error
	}
	ws := make([]*work, raceProjects)
	for i := range ws {
		p := newProject(t, s, org.ID)
		ws[i] = &work{p: p, old: newAsk(t, s, p, nil), recErrs: make([]error, 4)}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	ctx := t.Context()
	for _, w := range ws {
		wg.Go(func() {
			<-start
			if w.delErr = s.DeleteProject(ctx, w.p.ID, time.Now().UTC()); w.delErr == nil {
				w.delErr = s.PurgeProject(ctx, w.p.ID)
			}
		})
		wg.Go(func() { <-start; w.fbErr = s.SetAssistantFeedback(ctx, w.p.ID, w.old.ID, true) })
		for j := range w.recErrs {
			wg.Go(func() {
				<-start
				w.recErrs[j] = s.RecordAssistantMessage(ctx, &lectern.AssistantMessage{ProjectID: w.p.ID, Source: lectern.AssistantFromSite,
					Question: "Racing " + unique() + "?", Answer: "Maybe."})
			})
		}
	}
	close(start)
	wg.Wait()

	for i, w := range ws {
		what := fmt.Sprintf("project %d", i)
		if w.delErr != nil {
			t.Errorf("%s: DeleteProject and PurgeProject racing new messages: %v", what, w.delErr)
		}
		if c := lectern.ErrorCode(w.fbErr); c != "" && c != lectern.ENOTFOUND {
			t.Errorf("%s: SetAssistantFeedback racing DeleteProject: %v, want nil or %s", what, w.fbErr, lectern.ENOTFOUND)
		}
		for j, err := range w.recErrs {
			if c := lectern.ErrorCode(err); c != "" && c != lectern.ENOTFOUND {
				t.Errorf("%s: RecordAssistantMessage %d racing DeleteProject: %v, want nil or %s", what, j, err, lectern.ENOTFOUND)
			}
		}
	}
	wantAsks(t, s, "a bystander project after the races", kept.ProjectID, kept)
	wantStored(t, s, "after the purges", 1) // kept
}

package storetest

// The assistant messages' lists (pages, time windows, one project's
// only), their retention and their bounds.

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// askLister lists ListAssistantMessages(projectID, f), checking that each
// message is of projectID.
func askLister(t *testing.T, s store.Store, projectID string, f store.AssistantFilter) lister {
	return func(pg store.Page) ([]rec, error) {
		ms, err := s.ListAssistantMessages(t.Context(), projectID, f, pg)
		var rs []rec
		for _, m := range ms {
			if m.ProjectID != projectID {
				t.Errorf("ListAssistantMessages(%s) returned message %s of project %s", projectID, m.ID, m.ProjectID)
			}
			rs = append(rs, rec{m.ID, m.CreatedAt})
		}
		return rs, err
	}
}

// inWindow reports whether f selects a message created at at.
func inWindow(f store.AssistantFilter, at time.Time) bool {
	return (f.Since.IsZero() || !at.Before(f.Since)) && (f.Until.IsZero() || at.Before(f.Until))
}

// selectWindow returns the records of rs that f selects, newest first.
func selectWindow(rs []rec, f store.AssistantFilter) []rec {
	var out []rec
	for _, r := range rs {
		if inWindow(f, r.At) {
			out = append(out, r)
		}
	}
	return newestFirst(out)
}

// testAssistantPaging: ListAssistantMessages lists one project's
// messages, newest first and by ID among equal times, in pages that walk
// the list once, with or without a window; never another project's.
func testAssistantPaging(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p, q, r := newProject(t, s, org.ID), newProject(t, s, org.ID), newProject(t, s, org2.ID)
	base := pagingBase()
	rp := planRecs(lectern.PrefixAssistantMessage, base, pagingOffsets)
	rq := planRecs(lectern.PrefixAssistantMessage, base, []int{1, 1, 3})
	rr := planRecs(lectern.PrefixAssistantMessage, base, []int{1, 3, 3})
	for n, i := range pagingOrder {
		askAt(t, s, p, rp[i])
		if n < len(rq) {
			askAt(t, s, q, rq[n])
			askAt(t, s, r, rr[n])
		}
	}
	empty := newProject(t, s, org.ID)

	wantPages(t, "ListAssistantMessages(p)", askLister(t, s, p.ID, store.AssistantFilter{}), newestFirst(rp))
	wantPages(t, "ListAssistantMessages(q)", askLister(t, s, q.ID, store.AssistantFilter{}), newestFirst(rq))
	wantPages(t, "ListAssistantMessages(r)", askLister(t, s, r.ID, store.AssistantFilter{}), newestFirst(rr))
	wantPages(t, "ListAssistantMessages(project without messages)", askLister(t, s, empty.ID, store.AssistantFilter{}), nil)
	wantPages(t, "ListAssistantMessages(missing project)", askLister(t, s, missingID(lectern.PrefixProject), store.AssistantFilter{}), nil)

	f := store.AssistantFilter{Since: base.Add(time.Minute), Until: base.Add(3 * time.Minute)}
	want := selectWindow(rp, f)
	if len(want) != 4 {
		t.Fatalf("the window selects %d of p's messages, want 4", len(want))
	}
	wantPages(t, "ListAssistantMessages(p, +1m to +3m)", askLister(t, s, p.ID, f), want)
}

// testAssistantWindow: ListAssistantMessages selects the messages created
// at or after Since and before Until, whatever the times' zones.
func testAssistantWindow(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org.ID)
	base := pagingBase()
	rp := planRecs(lectern.PrefixAssistantMessage, base, pagingOffsets)
	rq := planRecs(lectern.PrefixAssistantMessage, base, []int{0, 1, 2, 3})
	for n, i := range pagingOrder {
		askAt(t, s, p, rp[i])
		if n < len(rq) {
			askAt(t, s, q, rq[n])
		}
	}
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	elsewhere := time.FixedZone("UTC+5:30", 5*3600+1800)
	const micro = time.Microsecond
	for _, c := range []struct {
		f store.AssistantFilter
		n int // messages of p selected
	}{
		{store.AssistantFilter{}, 9},
		{store.AssistantFilter{Since: at(1)}, 8},
		{store.AssistantFilter{Since: at(1).Add(micro)}, 5},
		{store.AssistantFilter{Until: at(3)}, 5},
		{store.AssistantFilter{Until: at(3).Add(micro)}, 9},
		{store.AssistantFilter{Since: at(1), Until: at(3)}, 4},
		{store.AssistantFilter{Since: at(2), Until: at(2).Add(micro)}, 1},
		{store.AssistantFilter{Since: at(1).In(elsewhere), Until: at(3).In(elsewhere)}, 4},
		{store.AssistantFilter{Since: at(1), Until: at(1)}, 0},
		{store.AssistantFilter{Since: at(3), Until: at(1)}, 0},
		{store.AssistantFilter{Since: at(4)}, 0},
		{store.AssistantFilter{Until: at(0)}, 0},
	} {
		want := selectWindow(rp, c.f)
		if len(want) != c.n {
			t.Fatalf("window %v to %v selects %d of p's messages, want %d", c.f.Since, c.f.Until, len(want), c.n)
		}
		what := fmt.Sprintf("ListAssistantMessages(p, %s to %s)", fmtTime(&c.f.Since), fmtTime(&c.f.Until))
		wantPages(t, what, askLister(t, s, p.ID, c.f), want)
		wantList(t, what+" of q", askLister(t, s, q.ID, c.f), store.Page{}, selectWindow(rq, c.f))
	}
}

// testAssistantIsolation: messages of projects of one organization and of
// another, created at the same time, are each listed in their project's
// list only, whole or by pages or windows.
func testAssistantIsolation(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	ps := []*lectern.Project{newProject(t, s, a.ID), newProject(t, s, a.ID), newProject(t, s, b.ID)}
	at := us(time.Now().UTC().Add(-time.Hour))
	own := map[string][]string{}
	for range 3 {
		for _, p := range ps {
			m := newAsk(t, s, p, func(m *lectern.AssistantMessage) { m.CreatedAt = at })
			own[p.ID] = append(own[p.ID], m.ID)
		}
	}
	for _, p := range ps {
		for _, f := range []store.AssistantFilter{{}, {Since: at, Until: at.Add(time.Microsecond)}} {
			rs, err := askLister(t, s, p.ID, f)(store.Page{})
			must(t, err, "ListAssistantMessages")
			if !sameSet(recIDs(rs), own[p.ID]) {
				t.Errorf("ListAssistantMessages(%s, %+v) = %v, want its own %v", p.ID, f, recIDs(rs), own[p.ID])
			}
			first, err := askLister(t, s, p.ID, f)(store.Page{Limit: 2})
			must(t, err, "ListAssistantMessages")
			rest, err := askLister(t, s, p.ID, f)(store.Page{Limit: 2, After: first[len(first)-1].cursor()})
			must(t, err, "ListAssistantMessages")
			if got := recIDs(append(first, rest...)); !sameSet(got, own[p.ID]) {
				t.Errorf("ListAssistantMessages(%s, %+v) in pages of 2 = %v, want its own %v", p.ID, f, got, own[p.ID])
			}
		}
	}
}

// testAssistantRetention: PruneAssistantMessages drops the messages of
// every project created before a time, oldest first, up to its limit
// (none for 0, all for a negative one), and returns how many it dropped.
func testAssistantRetention(t *testing.T, s store.Store) {
	org, org2 := newOrg(t, s), newOrg(t, s)
	p, q := newProject(t, s, org.ID), newProject(t, s, org2.ID)
	base := us(time.Now().UTC().Add(-3 * time.Hour))
	ask := func(p *lectern.Project, at time.Time) *lectern.AssistantMessage {
		return askAt(t, s, p, rec{lectern.NewID(lectern.PrefixAssistantMessage), at})
	}
	askAt(t, s, p, rec{lectern.NewID(lectern.PrefixAssistantMessage), base})
	qOld := ask(q, base.Add(30*time.Minute))
	pair := planRecs(lectern.PrefixAssistantMessage, base.Add(time.Hour), []int{0, 0})
	pa, pb := askAt(t, s, p, pair[0]), askAt(t, s, p, pair[1]) // pb's ID is the higher
	pNew := ask(p, base.Add(2*time.Hour))
	qNew := ask(q, base.Add(3*time.Hour))

	prune := func(before time.Time, limit, want int) {
		t.Helper()
		n, err := s.PruneAssistantMessages(t.Context(), before, limit)
		must(t, err, "PruneAssistantMessages")
		if n != want {
			t.Errorf("PruneAssistantMessages(before %s, limit %d) = %d, want %d", fmtTime(&before), limit, n, want)
		}
	}
	prune(base.Add(time.Hour), 1, 1) // p's oldest
	wantAsks(t, s, "p after the first prune", p.ID, pNew, pb, pa)
	wantAsks(t, s, "q after the first prune", q.ID, qNew, qOld)
	prune(base.Add(time.Hour), 1, 1) // q's oldest
	wantAsks(t, s, "q after the second prune", q.ID, qNew)
	prune(base.Add(time.Hour), 5, 0) // created at the time given: kept
	prune(base.Add(time.Hour+time.Microsecond), 0, 0)
	wantAsks(t, s, "p after a prune of limit 0", p.ID, pNew, pb, pa)
	prune(base.Add(time.Hour+time.Microsecond), -1, 2)
	wantAsks(t, s, "p after pruning the pair", p.ID, pNew)
	wantAsks(t, s, "q after pruning the pair", q.ID, qNew)
	prune(time.Now().UTC().Add(time.Hour), -1, 2)
	wantAsks(t, s, "p after pruning all", p.ID)
	wantAsks(t, s, "q after pruning all", q.ID)
}

// wantText fails the test unless got is want, saying where they differ
// rather than printing long texts whole.
func wantText(t *testing.T, what, got, want string) {
	t.Helper()
	if got == want {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes (valid UTF-8 %t), want %d; first difference at byte %d: %q, want %q",
		what, len(got), utf8.ValidString(got), len(want), i, got[i:min(i+12, len(got))], want[i:min(i+12, len(want))])
}

// testAssistantBounds: RecordAssistantMessage keeps text within its bounds
// by cutting it at a rune boundary, ended with "…", and keeps the first
// citations only; text within its bounds is kept whole; invalid UTF-8 and
// NUL characters are replaced. The message is listed as Record left it.
func testAssistantBounds(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	p := newProject(t, s, org.ID)
	start := us(time.Now().UTC().Add(-time.Hour))
	var cites []lectern.AssistantCitation
	for i := range 12 {
		cites = append(cites, lectern.AssistantCitation{Title: fmt.Sprintf("Page %d", i), URL: fmt.Sprintf("/p/%d#s", i)})
	}
	cites[0] = lectern.AssistantCitation{Title: strings.Repeat("t", 400), URL: "/" + strings.Repeat("u", 3000)}
	long := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.Question = strings.Repeat("é", lectern.MaxAssistantQuestion+1)
		m.Answer = strings.Repeat("€", 6000) // 18,000 bytes: the cut falls inside a rune
		m.Domain, m.Model = strings.Repeat("d", 300), strings.Repeat("m", 200)
		m.Citations, m.CreatedAt = cites, start
	})
	wantText(t, "a long question", long.Question, strings.Repeat("é", lectern.MaxAssistantQuestion-1)+"…")
	wantText(t, "a long answer", long.Answer, strings.Repeat("€", (lectern.MaxAssistantAnswer-len("…"))/3)+"…")
	if len(long.Answer) > lectern.MaxAssistantAnswer {
		t.Errorf("a long answer is kept at %d bytes, over %d", len(long.Answer), lectern.MaxAssistantAnswer)
	}
	wantText(t, "a long domain", long.Domain, strings.Repeat("d", lectern.MaxAssistantDomain-len("…"))+"…")
	wantText(t, "a long model", long.Model, strings.Repeat("m", lectern.MaxAssistantModel-len("…"))+"…")
	if len(long.Citations) != lectern.MaxAssistantCitations {
		t.Fatalf("%d citations kept of 12, want %d", len(long.Citations), lectern.MaxAssistantCitations)
	}
	wantText(t, "a long citation title", long.Citations[0].Title, strings.Repeat("t", lectern.MaxCitationTitle-len("…"))+"…")
	wantText(t, "a long citation URL", long.Citations[0].URL, "/"+strings.Repeat("u", lectern.MaxCitationURL-len("…")-1)+"…")
	for i, c := range long.Citations[1:] {
		if c != cites[i+1] {
			t.Errorf("citation %d kept as %+v, want %+v", i+1, c, cites[i+1])
		}
	}

	// Text exactly at its bounds: kept whole.
	fitQuestion := strings.Repeat("é", lectern.MaxAssistantQuestion)
	fitAnswer := strings.Repeat("€", lectern.MaxAssistantAnswer/3) + "ab"[:lectern.MaxAssistantAnswer%3]
	fit := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.Question, m.Answer = fitQuestion, fitAnswer
		m.Domain, m.Model = strings.Repeat("d", lectern.MaxAssistantDomain), strings.Repeat("m", lectern.MaxAssistantModel)
		m.Citations = append(cites[1:lectern.MaxAssistantCitations:lectern.MaxAssistantCitations],
			lectern.AssistantCitation{Title: strings.Repeat("t", lectern.MaxCitationTitle), URL: strings.Repeat("u", lectern.MaxCitationURL)})
		m.CreatedAt = start.Add(time.Minute)
	})
	wantText(t, "a question within bounds", fit.Question, fitQuestion)
	wantText(t, "an answer within bounds", fit.Answer, fitAnswer)
	wantText(t, "a domain within bounds", fit.Domain, strings.Repeat("d", lectern.MaxAssistantDomain))
	wantText(t, "a model within bounds", fit.Model, strings.Repeat("m", lectern.MaxAssistantModel))
	if len(fit.Citations) != lectern.MaxAssistantCitations || fit.Citations[9].URL != strings.Repeat("u", lectern.MaxCitationURL) {
		t.Errorf("citations within bounds: %d kept, the last URL %d bytes; want %d and %d", len(fit.Citations), len(fit.Citations[9].URL),
			lectern.MaxAssistantCitations, lectern.MaxCitationURL)
	}

	bad := newAsk(t, s, p, func(m *lectern.AssistantMessage) {
		m.Question, m.Answer = "bad \xff\xfe byte, nul \x00 here?", "cut rune \xc3"
		m.Citations = []lectern.AssistantCitation{{Title: "a\x00b", URL: "/x\xff"}}
		m.CreatedAt = start.Add(2 * time.Minute)
	})
	wantText(t, "a question with bad bytes", bad.Question, "bad \uFFFD byte, nul \uFFFD here?")
	wantText(t, "an answer with bad bytes", bad.Answer, "cut rune \uFFFD")
	if want := (lectern.AssistantCitation{Title: "a\uFFFDb", URL: "/x\uFFFD"}); len(bad.Citations) != 1 || bad.Citations[0] != want {
		t.Errorf("a citation with bad bytes kept as %+v, want [%+v]", bad.Citations, want)
	}

	wantAsks(t, s, "messages cut to their bounds", p.ID, bad, fit, long)
}

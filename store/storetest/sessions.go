package storetest

import (
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

// newSession stores a session of u valid for ttl from at and returns it
// with its token.
func newSession(t *testing.T, s store.Store, u *lectern.User, at time.Time, ttl time.Duration) (*lectern.Session, string) {
	t.Helper()
	tok := lectern.NewSessionToken()
	sess := &lectern.Session{Hash: lectern.HashToken(tok), UserID: u.ID, CSRF: lectern.NewCSRFToken(), CreatedAt: at, ExpiresAt: at.Add(ttl)}
	must(t, s.CreateSession(t.Context(), sess), "CreateSession")
	return sess, tok
}

// newSignInToken stores a sign-in token of u valid for ttl from at.
func newSignInToken(t *testing.T, s store.Store, u *lectern.User, at time.Time, ttl time.Duration) []byte {
	t.Helper()
	h := lectern.HashToken(lectern.NewSignInToken())
	must(t, s.CreateSignInToken(t.Context(), &lectern.SignInToken{Hash: h, UserID: u.ID, CreatedAt: at, ExpiresAt: at.Add(ttl)}), "CreateSignInToken")
	return h
}

func testSessions(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	sess, tok := newSession(t, s, u, at, time.Hour)
	if !lectern.ValidID(lectern.PrefixSession, sess.ID) || sess.OrgID != org.ID {
		t.Errorf("CreateSession set ID %q, OrgID %q; want a %s ID and %s", sess.ID, sess.OrgID, lectern.PrefixSession, org.ID)
	}
	got, err := s.GetSessionByHash(t.Context(), lectern.HashToken(tok), at)
	must(t, err, "GetSessionByHash")
	if got.ID != sess.ID || got.UserID != u.ID || got.OrgID != org.ID || got.CSRF != sess.CSRF || string(got.Hash) != string(sess.Hash) {
		t.Errorf("GetSessionByHash = %+v, want %+v", got, sess)
	}
	wantTime(t, "CreatedAt", got.CreatedAt, at)
	wantTime(t, "LastSeenAt", got.LastSeenAt, at)
	wantTime(t, "ExpiresAt", got.ExpiresAt, at.Add(time.Hour))
	_, err = s.GetSessionByHash(t.Context(), lectern.HashToken(lectern.NewSessionToken()), at)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash(unknown)")

	// Sign out: gone, and signing out again is no error.
	other, otherTok := newSession(t, s, u, at, time.Hour)
	must(t, s.DeleteSession(t.Context(), sess.Hash), "DeleteSession")
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, at)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash after DeleteSession")
	must(t, s.DeleteSession(t.Context(), sess.Hash), "DeleteSession again")
	if got, err := s.GetSessionByHash(t.Context(), lectern.HashToken(otherTok), at); err != nil || got.ID != other.ID {
		t.Errorf("the user's other session after one sign-out: %v, %v", got, err)
	}
}

func testSessionExpiry(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	sess, _ := newSession(t, s, u, at, time.Hour)
	if _, err := s.GetSessionByHash(t.Context(), sess.Hash, at.Add(time.Hour-time.Microsecond)); err != nil {
		t.Errorf("GetSessionByHash just before expiry: %v", err)
	}
	_, err := s.GetSessionByHash(t.Context(), sess.Hash, at.Add(time.Hour))
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash at ExpiresAt")

	// Sliding: a touch moves the expiry and records the use.
	seen := at.Add(50 * time.Minute)
	must(t, s.TouchSession(t.Context(), sess.Hash, seen, seen.Add(time.Hour)), "TouchSession")
	got, err := s.GetSessionByHash(t.Context(), sess.Hash, at.Add(90*time.Minute))
	must(t, err, "GetSessionByHash after TouchSession")
	wantTime(t, "LastSeenAt", got.LastSeenAt, seen)
	wantTime(t, "ExpiresAt", got.ExpiresAt, seen.Add(time.Hour))
	wantTime(t, "CreatedAt", got.CreatedAt, at)

	// An expired session is not revived by a touch.
	late := seen.Add(2 * time.Hour)
	wantCode(t, s.TouchSession(t.Context(), sess.Hash, late, late.Add(time.Hour)), lectern.ENOTFOUND, "TouchSession of an expired session")
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, seen)
	must(t, err, "GetSessionByHash before expiry")
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, late)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash after a refused touch")
	wantCode(t, s.TouchSession(t.Context(), lectern.HashToken("lss_unknown"), at, late), lectern.ENOTFOUND, "TouchSession(unknown)")
}

func testSessionRefused(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	h := lectern.HashToken(lectern.NewSessionToken())
	for _, c := range []struct {
		what string
		sess lectern.Session
		code string
	}{
		{"no hash", lectern.Session{UserID: u.ID, CSRF: "c", ExpiresAt: at}, lectern.EINVALID},
		{"a short hash", lectern.Session{Hash: h[:16], UserID: u.ID, CSRF: "c", ExpiresAt: at}, lectern.EINVALID},
		{"no CSRF secret", lectern.Session{Hash: h, UserID: u.ID, ExpiresAt: at}, lectern.EINVALID},
		{"no expiry", lectern.Session{Hash: h, UserID: u.ID, CSRF: "c"}, lectern.EINVALID},
		{"a missing user", lectern.Session{Hash: h, UserID: missingID(lectern.PrefixUser), CSRF: "c", ExpiresAt: at.Add(time.Hour)}, lectern.ENOTFOUND},
	} {
		wantCode(t, s.CreateSession(t.Context(), &c.sess), c.code, "CreateSession with "+c.what)
	}
	_, err := s.GetSessionByHash(t.Context(), h, at)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash after refused creates")
	sess, _ := newSession(t, s, u, at, time.Hour)
	err = s.CreateSession(t.Context(), &lectern.Session{Hash: sess.Hash, UserID: u.ID, CSRF: "c", ExpiresAt: at.Add(time.Hour)})
	wantCode(t, err, lectern.ECONFLICT, "CreateSession with a taken hash")
}

func testDeleteUserSessions(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u, other := newUser(t, s, org.ID), newUser(t, s, org.ID)
	at := now()
	a, _ := newSession(t, s, u, at, time.Hour)
	b, _ := newSession(t, s, u, at, time.Hour)
	keep, _ := newSession(t, s, other, at, time.Hour)
	n, err := s.DeleteUserSessions(t.Context(), u.ID)
	must(t, err, "DeleteUserSessions")
	if n != 2 {
		t.Errorf("DeleteUserSessions ended %d sessions, want 2", n)
	}
	for _, h := range [][]byte{a.Hash, b.Hash} {
		_, err := s.GetSessionByHash(t.Context(), h, at)
		wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash after DeleteUserSessions")
	}
	if _, err := s.GetSessionByHash(t.Context(), keep.Hash, at); err != nil {
		t.Errorf("another user's session after DeleteUserSessions: %v", err)
	}
	if n, err := s.DeleteUserSessions(t.Context(), u.ID); n != 0 || err != nil {
		t.Errorf("DeleteUserSessions again = %d, %v; want 0, nil", n, err)
	}
}

func testSignInTokenOnce(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	h := newSignInToken(t, s, u, at, 24*time.Hour)
	got, err := s.UseSignInToken(t.Context(), h, at.Add(time.Hour))
	must(t, err, "UseSignInToken")
	if got.ID != u.ID || got.Email != u.Email || got.OrgID != org.ID {
		t.Errorf("UseSignInToken = %+v, want user %s", got, u.ID)
	}
	_, err = s.UseSignInToken(t.Context(), h, at.Add(time.Hour))
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken a second time")
	_, err = s.UseSignInToken(t.Context(), lectern.HashToken(lectern.NewSignInToken()), at)
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken(unknown)")

	err = s.CreateSignInToken(t.Context(), &lectern.SignInToken{Hash: h, UserID: u.ID, ExpiresAt: at.Add(time.Hour)})
	wantCode(t, err, lectern.ECONFLICT, "CreateSignInToken with a taken hash")
	fresh := lectern.HashToken(lectern.NewSignInToken())
	for _, c := range []struct {
		what string
		tok  lectern.SignInToken
		code string
	}{
		{"a short hash", lectern.SignInToken{Hash: fresh[:8], UserID: u.ID, ExpiresAt: at.Add(time.Hour)}, lectern.EINVALID},
		{"no expiry", lectern.SignInToken{Hash: fresh, UserID: u.ID}, lectern.EINVALID},
		{"a missing user", lectern.SignInToken{Hash: fresh, UserID: missingID(lectern.PrefixUser), ExpiresAt: at.Add(time.Hour)}, lectern.ENOTFOUND},
	} {
		wantCode(t, s.CreateSignInToken(t.Context(), &c.tok), c.code, "CreateSignInToken with "+c.what)
	}
	_, err = s.UseSignInToken(t.Context(), fresh, at)
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken of a refused token")
}

func testSignInTokenExpiry(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	h := newSignInToken(t, s, u, at, 24*time.Hour)
	_, err := s.UseSignInToken(t.Context(), h, at.Add(24*time.Hour))
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken at its expiry")
	// The refused use did not spend it: earlier, it still works.
	if _, err := s.UseSignInToken(t.Context(), h, at.Add(24*time.Hour-time.Second)); err != nil {
		t.Errorf("UseSignInToken before expiry after a refused late use: %v", err)
	}
}

// Of many concurrent uses of one token, exactly one signs in.
func testSignInTokenRace(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	h := newSignInToken(t, s, u, at, time.Hour)
	const n = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, lost := 0, 0
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			got, err := s.UseSignInToken(t.Context(), h, at)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && got.ID == u.ID:
				won++
			case lectern.ErrorCode(err) == lectern.ENOTFOUND:
				lost++
			default:
				t.Errorf("UseSignInToken: %v, %v", got, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if won != 1 || lost != n-1 {
		t.Errorf("%d concurrent uses of one token: %d succeeded, %d refused; want 1 and %d", n, won, lost, n-1)
	}
}

func testPruneSessions(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	at := now()
	old, _ := newSession(t, s, u, at.Add(-3*time.Hour), time.Hour) // expired 2 h ago
	live, _ := newSession(t, s, u, at, time.Hour)
	expiredTok := newSignInToken(t, s, u, at.Add(-3*time.Hour), time.Hour)
	usedTok := newSignInToken(t, s, u, at.Add(-3*time.Hour), 24*time.Hour)
	_, err := s.UseSignInToken(t.Context(), usedTok, at.Add(-2*time.Hour))
	must(t, err, "UseSignInToken")
	liveTok := newSignInToken(t, s, u, at, time.Hour)

	n, err := s.PruneSessions(t.Context(), at.Add(-time.Hour))
	must(t, err, "PruneSessions")
	if n != 3 {
		t.Errorf("PruneSessions dropped %d records, want 3 (a session, an expired and a used token)", n)
	}
	if _, err := s.GetSessionByHash(t.Context(), old.Hash, at.Add(-3*time.Hour)); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("a pruned session is still there, read at a time it was valid: %v", err)
	}
	if _, err := s.GetSessionByHash(t.Context(), live.Hash, at); err != nil {
		t.Errorf("a live session after PruneSessions: %v", err)
	}
	if _, err := s.UseSignInToken(t.Context(), expiredTok, at.Add(-3*time.Hour)); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("a pruned token is still there, used at a time it was valid: %v", err)
	}
	if _, err := s.UseSignInToken(t.Context(), liveTok, at); err != nil {
		t.Errorf("a live token after PruneSessions: %v", err)
	}
	if n, err := s.PruneSessions(t.Context(), at.Add(-time.Hour)); n != 0 || err != nil {
		t.Errorf("PruneSessions again = %d, %v; want 0, nil", n, err)
	}
}

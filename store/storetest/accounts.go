package storetest

import (
	"sync"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store"
)

var accountCases = []testCase{
	{"CreateAndGet", testUserCreateGet},
	{"EmailUniqueAcrossServer", testUserEmailUnique},
	{"CreateRefused", testUserCreateRefused},
	{"ListByOrg", testUserList},
	{"SetPassword", testUserSetPassword},
	{"LockOut", testUserLockOut},
	{"ConcurrentFailures", testUserConcurrentFailures},
	{"DeleteUser", testUserDelete},
	{"DeleteOrgDropsUsers", testUserDeleteOrg},
	{"SetUserRole", testSetUserRole},
	{"LastOwnerRace", testLastOwnerRace},
	{"DeleteMember", testDeleteMember},
	{"DeleteSignInTokens", testDeleteSignInTokens},
	{"Sessions", testSessions},
	{"SessionExpiry", testSessionExpiry},
	{"SessionRefused", testSessionRefused},
	{"SignOutEverywhere", testDeleteUserSessions},
	{"SignInTokenOnce", testSignInTokenOnce},
	{"SignInTokenExpiry", testSignInTokenExpiry},
	{"SignInTokenRace", testSignInTokenRace},
	{"Prune", testPruneSessions},
}

// newUser stores a member of orgID with a fresh email.
func newUser(t *testing.T, s store.Store, orgID string) *lectern.User {
	t.Helper()
	u := &lectern.User{OrgID: orgID, Email: "user-" + unique() + "@acme.test", Role: lectern.RoleMember}
	must(t, s.CreateUser(t.Context(), u), "CreateUser")
	return u
}

func wantUser(t *testing.T, what string, got, want *lectern.User) {
	t.Helper()
	if got.ID != want.ID || got.OrgID != want.OrgID || got.Email != want.Email || got.Role != want.Role ||
		got.PasswordHash != want.PasswordHash || got.FailedSignIns != want.FailedSignIns {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
	wantTime(t, what+" CreatedAt", got.CreatedAt, want.CreatedAt)
	wantTime(t, what+" PasswordSetAt", got.PasswordSetAt, want.PasswordSetAt)
	wantTime(t, what+" LockedUntil", got.LockedUntil, want.LockedUntil)
}

func testUserCreateGet(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := &lectern.User{OrgID: org.ID, Email: "  Ada.Lovelace@Example.COM ", Role: lectern.RoleOwner}
	before := time.Now().Add(-time.Minute)
	must(t, s.CreateUser(t.Context(), u), "CreateUser")
	if !lectern.ValidID(lectern.PrefixUser, u.ID) {
		t.Errorf("CreateUser set ID %q, want a %s ID", u.ID, lectern.PrefixUser)
	}
	if u.Email != "ada.lovelace@example.com" {
		t.Errorf("CreateUser set Email %q, want it normalized", u.Email)
	}
	if u.CreatedAt.Before(before) || u.CreatedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("CreateUser set CreatedAt %v, want about now", u.CreatedAt)
	}
	got := mustGet(t, s.GetUser, u.ID)
	wantUser(t, "GetUser", got, u)
	if got.PasswordHash != "" || !got.PasswordSetAt.IsZero() || !got.LockedUntil.IsZero() {
		t.Errorf("a new user has a password or a lock: %+v", got)
	}
	for _, e := range []string{"ada.lovelace@example.com", "ADA.LOVELACE@example.com", " Ada.Lovelace@EXAMPLE.com"} {
		got, err := s.GetUserByEmail(t.Context(), e)
		must(t, err, "GetUserByEmail("+e+")")
		wantUser(t, "GetUserByEmail("+e+")", got, u)
	}
	_, err := s.GetUser(t.Context(), missingID(lectern.PrefixUser))
	wantCode(t, err, lectern.ENOTFOUND, "GetUser(missing)")
	_, err = s.GetUserByEmail(t.Context(), "nobody@example.com")
	wantCode(t, err, lectern.ENOTFOUND, "GetUserByEmail(unknown)")
	_, err = s.GetUserByEmail(t.Context(), "not an email")
	wantCode(t, err, lectern.ENOTFOUND, "GetUserByEmail(malformed)")
}

func testUserEmailUnique(t *testing.T, s store.Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	u := &lectern.User{OrgID: a.ID, Email: "dup@acme.test", Role: lectern.RoleMember}
	must(t, s.CreateUser(t.Context(), u), "CreateUser")
	// Another organization, other case: still the same address.
	for _, org := range []string{a.ID, b.ID} {
		err := s.CreateUser(t.Context(), &lectern.User{OrgID: org, Email: "DUP@Acme.Test", Role: lectern.RoleOwner})
		wantCode(t, err, lectern.ECONFLICT, "CreateUser with a taken email in "+org)
	}
	if users, _ := s.ListUsers(t.Context(), b.ID); len(users) != 0 {
		t.Errorf("a refused CreateUser stored %d users in %s", len(users), b.ID)
	}
	// The same ID twice is a conflict too.
	err := s.CreateUser(t.Context(), &lectern.User{ID: u.ID, OrgID: a.ID, Email: "other@acme.test", Role: lectern.RoleMember})
	wantCode(t, err, lectern.ECONFLICT, "CreateUser with a taken ID")
}

func testUserCreateRefused(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	for _, c := range []struct {
		what string
		u    lectern.User
		code string
	}{
		{"a malformed email", lectern.User{OrgID: org.ID, Email: "ada@", Role: lectern.RoleMember}, lectern.EINVALID},
		{"an unknown role", lectern.User{OrgID: org.ID, Email: "r@acme.test", Role: "admin"}, lectern.EINVALID},
		{"no role", lectern.User{OrgID: org.ID, Email: "r@acme.test"}, lectern.EINVALID},
		{"a missing organization", lectern.User{OrgID: missingID(lectern.PrefixOrg), Email: "r@acme.test", Role: lectern.RoleMember}, lectern.ENOTFOUND},
	} {
		wantCode(t, s.CreateUser(t.Context(), &c.u), c.code, "CreateUser with "+c.what)
	}
	gone := newOrg(t, s)
	must(t, s.DeleteOrg(t.Context(), gone.ID, now()), "DeleteOrg")
	err := s.CreateUser(t.Context(), &lectern.User{OrgID: gone.ID, Email: "late@acme.test", Role: lectern.RoleMember})
	wantCode(t, err, lectern.ENOTFOUND, "CreateUser in a deleted organization")
	if users, _ := s.ListUsers(t.Context(), ""); len(users) != 0 {
		t.Errorf("refused CreateUser calls stored %d users", len(users))
	}
}

func testUserList(t *testing.T, s store.Store) {
	a, b, empty := newOrg(t, s), newOrg(t, s), newOrg(t, s)
	a1 := newUser(t, s, a.ID)
	b1 := newUser(t, s, b.ID)
	a2 := newUser(t, s, a.ID)
	ids := func(users []*lectern.User) []string {
		var out []string
		for _, u := range users {
			out = append(out, u.ID)
		}
		return out
	}
	for _, c := range []struct {
		org  string
		want []string
	}{{a.ID, []string{a1.ID, a2.ID}}, {b.ID, []string{b1.ID}}, {empty.ID, nil}, {"", []string{a1.ID, b1.ID, a2.ID}}} {
		users, err := s.ListUsers(t.Context(), c.org)
		must(t, err, "ListUsers")
		if got := ids(users); len(got) != len(c.want) || (len(got) > 0 && !sameOrder(got, c.want)) {
			t.Errorf("ListUsers(%q) = %v, want %v (oldest first)", c.org, got, c.want)
		}
	}
}

func sameOrder(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func testUserSetPassword(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u, other := newUser(t, s, org.ID), newUser(t, s, org.ID)
	at := now()
	_, err := s.RecordSignIn(t.Context(), u.ID, false, at, 1, time.Hour)
	must(t, err, "RecordSignIn")
	_, err = s.RecordSignIn(t.Context(), u.ID, false, at, 5, time.Hour)
	must(t, err, "RecordSignIn")
	must(t, s.SetPassword(t.Context(), u.ID, "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$a2V5", at), "SetPassword")
	got := mustGet(t, s.GetUser, u.ID)
	if got.PasswordHash != "$argon2id$v=19$m=1,t=1,p=1$c2FsdA$a2V5" || got.FailedSignIns != 0 || !got.LockedUntil.IsZero() {
		t.Errorf("after SetPassword: hash %q, %d failures, locked until %v; want the hash, 0, zero", got.PasswordHash, got.FailedSignIns, got.LockedUntil)
	}
	wantTime(t, "PasswordSetAt", got.PasswordSetAt, at)
	if o := mustGet(t, s.GetUser, other.ID); o.PasswordHash != "" {
		t.Errorf("SetPassword of %s set %s's too", u.ID, other.ID)
	}
	wantCode(t, s.SetPassword(t.Context(), missingID(lectern.PrefixUser), "x", at), lectern.ENOTFOUND, "SetPassword(missing)")
}

func testUserLockOut(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u, other := newUser(t, s, org.ID), newUser(t, s, org.ID)
	at := now()
	record := func(ok bool, at time.Time) *lectern.User {
		t.Helper()
		got, err := s.RecordSignIn(t.Context(), u.ID, ok, at, 3, 15*time.Minute)
		must(t, err, "RecordSignIn")
		if stored := mustGet(t, s.GetUser, u.ID); stored.FailedSignIns != got.FailedSignIns || !sameTime(stored.LockedUntil, got.LockedUntil) {
			t.Errorf("RecordSignIn returned %d failures, locked until %v; GetUser has %d, %v", got.FailedSignIns, got.LockedUntil, stored.FailedSignIns, stored.LockedUntil)
		}
		return got
	}
	for i := 1; i <= 2; i++ {
		if got := record(false, at); got.FailedSignIns != i || !got.LockedUntil.IsZero() {
			t.Errorf("after %d failures: %d counted, locked until %v; want %d, not locked", i, got.FailedSignIns, got.LockedUntil, i)
		}
	}
	got := record(false, at.Add(time.Second)) // the third: locked
	wantTime(t, "LockedUntil after 3 failures", got.LockedUntil, at.Add(time.Second+15*time.Minute))
	if got.FailedSignIns != 0 || !got.Locked(at.Add(10*time.Minute)) || got.Locked(at.Add(16*time.Minute)) {
		t.Errorf("after the lock-out: %d failures, Locked %v; want 0, locked for 15 minutes", got.FailedSignIns, got.LockedUntil)
	}
	if o := mustGet(t, s.GetUser, other.ID); o.FailedSignIns != 0 || !o.LockedUntil.IsZero() {
		t.Errorf("another user's failures: %d, locked until %v", o.FailedSignIns, o.LockedUntil)
	}
	// A failure after the lock counts from zero again; a success clears.
	if got := record(false, at.Add(20*time.Minute)); got.FailedSignIns != 1 {
		t.Errorf("failure after the lock: %d counted, want 1", got.FailedSignIns)
	}
	if got := record(true, at.Add(21*time.Minute)); got.FailedSignIns != 0 || !got.LockedUntil.IsZero() {
		t.Errorf("after a success: %d failures, locked until %v; want 0, zero", got.FailedSignIns, got.LockedUntil)
	}
	// lockAfter 0 never locks.
	var err error
	for range 5 {
		got, err = s.RecordSignIn(t.Context(), other.ID, false, at, 0, time.Hour)
		must(t, err, "RecordSignIn")
	}
	if got.FailedSignIns != 5 || !got.LockedUntil.IsZero() {
		t.Errorf("lockAfter 0: %d failures, locked until %v; want 5, never", got.FailedSignIns, got.LockedUntil)
	}
	_, err = s.RecordSignIn(t.Context(), missingID(lectern.PrefixUser), false, at, 3, time.Hour)
	wantCode(t, err, lectern.ENOTFOUND, "RecordSignIn(missing)")
}

// Failures recorded at once all count: RecordSignIn is one atomic step.
func testUserConcurrentFailures(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u := newUser(t, s, org.ID)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := s.RecordSignIn(t.Context(), u.ID, false, now(), 100, time.Hour)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("RecordSignIn: %v", err)
		}
	}
	if got := mustGet(t, s.GetUser, u.ID); got.FailedSignIns != n {
		t.Errorf("%d concurrent failures counted as %d", n, got.FailedSignIns)
	}
}

func testUserDelete(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u, other := newUser(t, s, org.ID), newUser(t, s, org.ID)
	at := now()
	sess, _ := newSession(t, s, u, at, time.Hour)
	tok := newSignInToken(t, s, u, at, time.Hour)
	keep, _ := newSession(t, s, other, at, time.Hour)
	must(t, s.DeleteUser(t.Context(), u.ID), "DeleteUser")
	_, err := s.GetUser(t.Context(), u.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetUser after DeleteUser")
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, at)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash of a deleted user's session")
	_, err = s.UseSignInToken(t.Context(), tok, at)
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken of a deleted user's token")
	if _, err := s.GetSessionByHash(t.Context(), keep.Hash, at); err != nil {
		t.Errorf("another user's session after DeleteUser: %v", err)
	}
	wantCode(t, s.DeleteUser(t.Context(), u.ID), lectern.ENOTFOUND, "DeleteUser again")
	// The email is free again.
	must(t, s.CreateUser(t.Context(), &lectern.User{OrgID: org.ID, Email: u.Email, Role: lectern.RoleOwner}), "CreateUser with a deleted user's email")
}

func testUserDeleteOrg(t *testing.T, s store.Store) {
	org, kept := newOrg(t, s), newOrg(t, s)
	u := newUser(t, s, org.ID)
	k := newUser(t, s, kept.ID)
	at := now()
	sess, _ := newSession(t, s, u, at, time.Hour)
	tok := newSignInToken(t, s, u, at, time.Hour)
	keepSess, _ := newSession(t, s, k, at, time.Hour)
	must(t, s.DeleteOrg(t.Context(), org.ID, at), "DeleteOrg")
	_, err := s.GetUser(t.Context(), u.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetUser of a deleted organization's user")
	_, err = s.GetUserByEmail(t.Context(), u.Email)
	wantCode(t, err, lectern.ENOTFOUND, "GetUserByEmail of a deleted organization's user")
	if users, _ := s.ListUsers(t.Context(), org.ID); len(users) != 0 {
		t.Errorf("ListUsers of a deleted organization = %d users", len(users))
	}
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, at)
	wantCode(t, err, lectern.ENOTFOUND, "GetSessionByHash of a deleted organization's session")
	_, err = s.UseSignInToken(t.Context(), tok, at)
	wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken of a deleted organization's token")
	if _, err := s.GetUser(t.Context(), k.ID); err != nil {
		t.Errorf("another organization's user after DeleteOrg: %v", err)
	}
	if _, err := s.GetSessionByHash(t.Context(), keepSess.Hash, at); err != nil {
		t.Errorf("another organization's session after DeleteOrg: %v", err)
	}
	must(t, s.PurgeOrg(t.Context(), org.ID), "PurgeOrg")
	must(t, s.CreateUser(t.Context(), &lectern.User{OrgID: kept.ID, Email: u.Email, Role: lectern.RoleMember}), "CreateUser with a deleted organization's user's email")
}

// newOwner stores an owner of org.
func newOwner(t *testing.T, s store.Store, orgID string) *lectern.User {
	t.Helper()
	u := &lectern.User{OrgID: orgID, Email: "owner-" + unique() + "@acme.test", Role: lectern.RoleOwner}
	must(t, s.CreateUser(t.Context(), u), "CreateUser")
	return u
}

func testSetUserRole(t *testing.T, s store.Store) {
	org, other := newOrg(t, s), newOrg(t, s)
	a := newOwner(t, s, org.ID)
	b := newOwner(t, s, org.ID)
	lone := newOwner(t, s, other.ID)
	got, err := s.SetUserRole(t.Context(), a.ID, lectern.RoleMember)
	must(t, err, "SetUserRole member while another owner remains")
	if got.Role != lectern.RoleMember || got.ID != a.ID || got.Email != a.Email {
		t.Errorf("SetUserRole returned %+v", got)
	}
	if u := mustGet(t, s.GetUser, a.ID); u.Role != lectern.RoleMember {
		t.Errorf("role after SetUserRole = %s", u.Role)
	}
	_, err = s.SetUserRole(t.Context(), b.ID, lectern.RoleMember)
	wantCode(t, err, lectern.ECONFLICT, "SetUserRole demoting the last owner")
	if u := mustGet(t, s.GetUser, b.ID); u.Role != lectern.RoleOwner {
		t.Errorf("the last owner's role after a refused demotion = %s", u.Role)
	}
	// Another organization's owners do not count.
	_, err = s.SetUserRole(t.Context(), lone.ID, lectern.RoleMember)
	wantCode(t, err, lectern.ECONFLICT, "SetUserRole demoting another organization's only owner")
	_, err = s.SetUserRole(t.Context(), b.ID, lectern.RoleOwner)
	must(t, err, "SetUserRole owner to owner")
	_, err = s.SetUserRole(t.Context(), a.ID, "admin")
	wantCode(t, err, lectern.EINVALID, "SetUserRole with an unknown role")
	_, err = s.SetUserRole(t.Context(), "usr_missing", lectern.RoleOwner)
	wantCode(t, err, lectern.ENOTFOUND, "SetUserRole of a missing user")
}

func testLastOwnerRace(t *testing.T, s store.Store) {
	for range 5 {
		org := newOrg(t, s)
		a, b := newOwner(t, s, org.ID), newOwner(t, s, org.ID)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { _, errs[0] = s.SetUserRole(t.Context(), a.ID, lectern.RoleMember) })
		wg.Go(func() { errs[1] = s.DeleteMember(t.Context(), b.ID) })
		wg.Wait()
		owners := 0
		users, err := s.ListUsers(t.Context(), org.ID)
		must(t, err, "ListUsers")
		for _, u := range users {
			if u.Role == lectern.RoleOwner {
				owners++
			}
		}
		if owners != 1 {
			t.Fatalf("after racing a demotion and a removal of two owners: %d owners (errors %v, %v)", owners, errs[0], errs[1])
		}
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("exactly one of the racing changes must succeed: %v, %v", errs[0], errs[1])
		}
	}
}

func testDeleteMember(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	a := newOwner(t, s, org.ID)
	m := newUser(t, s, org.ID) // a member
	at := now()
	sess, _ := newSession(t, s, m, at, time.Hour)
	must(t, s.DeleteMember(t.Context(), m.ID), "DeleteMember of a member")
	_, err := s.GetUser(t.Context(), m.ID)
	wantCode(t, err, lectern.ENOTFOUND, "GetUser after DeleteMember")
	_, err = s.GetSessionByHash(t.Context(), sess.Hash, at)
	wantCode(t, err, lectern.ENOTFOUND, "a removed member's session")
	wantCode(t, s.DeleteMember(t.Context(), a.ID), lectern.ECONFLICT, "DeleteMember of the last owner")
	mustGet(t, s.GetUser, a.ID)
	b := newOwner(t, s, org.ID)
	must(t, s.DeleteMember(t.Context(), a.ID), "DeleteMember of an owner while another remains")
	wantCode(t, s.DeleteMember(t.Context(), a.ID), lectern.ENOTFOUND, "DeleteMember again")
	mustGet(t, s.GetUser, b.ID)
}

func testDeleteSignInTokens(t *testing.T, s store.Store) {
	org := newOrg(t, s)
	u, other := newUser(t, s, org.ID), newUser(t, s, org.ID)
	at := now()
	t1 := newSignInToken(t, s, u, at, time.Hour)
	t2 := newSignInToken(t, s, u, at, time.Hour)
	keep := newSignInToken(t, s, other, at, time.Hour)
	n, err := s.DeleteSignInTokens(t.Context(), u.ID)
	must(t, err, "DeleteSignInTokens")
	if n != 2 {
		t.Errorf("DeleteSignInTokens dropped %d, want 2", n)
	}
	for _, tok := range [][]byte{t1, t2} {
		_, err := s.UseSignInToken(t.Context(), tok, at)
		wantCode(t, err, lectern.ENOTFOUND, "UseSignInToken of a dropped token")
	}
	if _, err := s.UseSignInToken(t.Context(), keep, at); err != nil {
		t.Errorf("another user's token after DeleteSignInTokens: %v", err)
	}
	if n, err := s.DeleteSignInTokens(t.Context(), "usr_missing"); err != nil || n != 0 {
		t.Errorf("DeleteSignInTokens of a missing user = %d, %v", n, err)
	}
}

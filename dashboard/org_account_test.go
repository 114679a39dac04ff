package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"lectern.dev/lectern"
)

// orgChange posts the change-password form of b's account page.
func orgChange(b *browser, current, pw, confirm string) int {
	b.e.t.Helper()
	if s := b.do("GET", "/dashboard/org/account", nil); s != 200 {
		b.e.t.Fatalf("account page: %d", s)
	}
	return b.do("POST", "/dashboard/org/account/password", url.Values{"csrf": {b.csrf()}, "current": {current}, "password": {pw}, "confirm": {confirm}})
}

func orgFailures(e *env, id string) int {
	e.t.Helper()
	u, err := e.st.GetUser(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.FailedSignIns
}

// TestOrgChangePassword: a wrong current password is refused and counted,
// bad new ones are refused, and a change ends the user's other sessions
// while this browser stays signed in.
func TestOrgChangePassword(t *testing.T) {
	e := newEnv(t, Config{})
	const newPW = "a changed owner password"
	e.secrets = append(e.secrets, newPW, "not my current pass")
	a := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	other := orgSignedIn(e, "192.0.2.2", "owner@acme.test", ownerPW)
	if s := a.do("GET", "/dashboard/org/account", nil); s != 200 || !a.has(`<label for="current">Current password</label>`) ||
		!a.has(`<label for="confirm">Confirm new password</label>`) || !a.has("Sign out everywhere") {
		t.Fatalf("account page: %d\n%s", s, a.body)
	}

	if s := orgChange(a, "not my current pass", newPW, newPW); s != http.StatusBadRequest || !a.has(orgWrongPassword) || !a.has(`role="alert"`) {
		t.Errorf("a wrong current password: %d, want 400 saying so", s)
	}
	if n := orgFailures(e, e.owner.ID); n != 1 {
		t.Errorf("failed sign-ins after a wrong current password: %d, want 1", n)
	}
	if s := orgChange(a, ownerPW, newPW, newPW+"!"); s != http.StatusBadRequest || !a.has(orgPasswordsDiffer) {
		t.Errorf("new passwords that differ: %d, want 400", s)
	}
	if s := orgChange(a, ownerPW, "short", "short"); s != http.StatusBadRequest || !a.has("The password has 5 characters") {
		t.Errorf("a short new password: %d, want 400 saying why", s)
	}
	a.do("GET", "/dashboard/org/account", nil)
	if s := a.do("POST", "/dashboard/org/account/password", url.Values{"current": {ownerPW}, "password": {newPW}, "confirm": {newPW}}); s != http.StatusForbidden {
		t.Errorf("change without CSRF token: %d, want 403", s)
	}
	if s := other.do("GET", "/dashboard/keys", nil); s != 200 {
		t.Fatalf("refused changes ended the other session: %d", s)
	}

	if s := orgChange(a, ownerPW, newPW, newPW); s != http.StatusSeeOther || a.last.Header.Get("Location") != "/dashboard/org/account?changed=1" {
		t.Fatalf("change password: %d to %q\n%s", s, a.last.Header.Get("Location"), a.body)
	}
	if s := a.do("GET", "/dashboard/org/account?changed=1", nil); s != 200 || !a.has(orgPasswordChanged) {
		t.Errorf("this browser after the change: %d, want the account page with the notice", s)
	}
	if s := other.do("GET", "/dashboard/keys", nil); s != http.StatusSeeOther {
		t.Errorf("the other browser's session after the change: %d, want 303 to sign in", s)
	}
	if n := orgFailures(e, e.owner.ID); n != 0 {
		t.Errorf("failed sign-ins after the change: %d, want 0", n)
	}
	if s := e.browser("192.0.2.3").signIn("owner@acme.test", ownerPW); s != http.StatusUnauthorized {
		t.Errorf("sign in with the old password: %d, want 401", s)
	}
	orgSignedIn(e, "192.0.2.4", "owner@acme.test", newPW)
}

// TestOrgChangePasswordLimits: wrong current passwords lock the account
// out as failed sign-ins do, and spend the address's sign-in attempts.
func TestOrgChangePasswordLimits(t *testing.T) {
	e := newEnv(t, Config{})
	const newPW = "a changed member password"
	e.secrets = append(e.secrets, newPW)
	b := orgSignedIn(e, "192.0.2.1", "member@acme.test", memberPW)
	for i := range lectern.SignInLockAfter {
		e.advance(7 * time.Second) // within the address's rate
		s := orgChange(b, fmt.Sprintf("wrong password %d", i), newPW, newPW)
		if i < lectern.SignInLockAfter-1 && s != http.StatusBadRequest {
			t.Fatalf("wrong current password %d: %d, want 400", i, s)
		}
		if i == lectern.SignInLockAfter-1 && (s != http.StatusForbidden || !b.has("locked until")) {
			t.Fatalf("the wrong current password that locks: %d, want 403 saying locked", s)
		}
	}
	e.advance(7 * time.Second)
	if s := orgChange(b, memberPW, newPW, newPW); s != http.StatusForbidden || !b.has("locked until") {
		t.Errorf("the right current password while locked: %d, want 403", s)
	}
	if s := e.browser("198.51.100.1").signIn("member@acme.test", memberPW); s != http.StatusUnauthorized {
		t.Errorf("sign in while the form locked the account: %d, want 401", s)
	}
	e.advance(lectern.SignInLockFor)

	// The address's attempts: spent at sign-in, refused here.
	c := orgSignedIn(e, "192.0.2.9", "owner@acme.test", ownerPW)
	for range SignInsPerMinute {
		e.browser("192.0.2.9").signIn("nobody@acme.test", "whatever password")
	}
	before := orgFailures(e, e.owner.ID)
	if s := orgChange(c, "not my current pass", newPW, newPW); s != http.StatusTooManyRequests || !c.has(orgTooManyAttempts) {
		t.Errorf("a change past the address's attempts: %d, want 429", s)
	}
	if s := orgChange(c, ownerPW, newPW, newPW); s != http.StatusTooManyRequests || orgFailures(e, e.owner.ID) != before {
		t.Errorf("a change past the address's attempts: %d, want 429 and nothing counted", s)
	}
	if s := e.browser("192.0.2.10").signIn("owner@acme.test", ownerPW); s != http.StatusSeeOther {
		t.Errorf("the password changed although refused: sign in with the old one: %d", s)
	}
}

// TestOrgSignOutEverywhere: every session of the user ends, this one
// included; another user's stay.
func TestOrgSignOutEverywhere(t *testing.T) {
	e := newEnv(t, Config{})
	a := orgSignedIn(e, "192.0.2.1", "member@acme.test", memberPW)
	other := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	owner := orgSignedIn(e, "192.0.2.3", "owner@acme.test", ownerPW)
	a.do("GET", "/dashboard/org/account", nil)
	tok := a.csrf()
	cookie := a.cookies[sessionCookie]
	if s := a.do("POST", "/dashboard/org/account/signout-everywhere", url.Values{}); s != http.StatusForbidden {
		t.Errorf("sign out everywhere without CSRF token: %d, want 403", s)
	}
	if s := other.do("GET", "/dashboard/org", nil); s != 200 {
		t.Fatalf("a refused sign-out ended a session: %d", s)
	}
	if s := a.do("POST", "/dashboard/org/account/signout-everywhere", url.Values{"csrf": {tok}}); s != http.StatusSeeOther ||
		a.last.Header.Get("Location") != "/dashboard/signin?signedout=1" {
		t.Fatalf("sign out everywhere: %d to %q", s, a.last.Header.Get("Location"))
	}
	if _, ok := a.cookies[sessionCookie]; ok {
		t.Error("the session cookie is still set")
	}
	a.cookies[sessionCookie] = cookie
	for name, b := range map[string]*browser{"this": a, "the other": other} {
		if s := b.do("GET", "/dashboard/org", nil); s != http.StatusSeeOther {
			t.Errorf("%s browser after signing out everywhere: %d, want 303 to sign in", name, s)
		}
	}
	if s := owner.do("GET", "/dashboard/org", nil); s != 200 {
		t.Errorf("another user's session ended: %d", s)
	}
}

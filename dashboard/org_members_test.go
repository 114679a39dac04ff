package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"lectern.dev/lectern"
)

// orgLinkRe finds the one-time link an invitation page shows.
var orgLinkRe = regexp.MustCompile(`value="(http://` + regexp.QuoteMeta(serverHost) + `/dashboard/welcome\?token=(lsi_[a-z2-7]+))"`)

// orgLink returns the link and token of the last page, and keeps the
// token out of the log.
func orgLink(b *browser) (link, token string) {
	b.e.t.Helper()
	m := orgLinkRe.FindStringSubmatch(b.body)
	if m == nil {
		b.e.t.Fatalf("no sign-in link on the page:\n%s", b.body)
	}
	b.e.secrets = append(b.e.secrets, m[2])
	return m[1], m[2]
}

// orgWelcome spends a sign-in link's token through the welcome page and
// returns the POST's status.
func orgWelcome(e *env, addr, token, pw string) int {
	e.t.Helper()
	b := e.browser(addr)
	if s := b.do("GET", "/dashboard/welcome?token="+token, nil); s != 200 {
		e.t.Fatalf("welcome page: %d", s)
	}
	return b.do("POST", "/dashboard/welcome", url.Values{"csrf": {b.csrf()}, "token": {token}, "password": {pw}, "confirm": {pw}})
}

// TestOrgInvite: an owner's invitation creates the user without a
// password and shows a link, valid 24 hours, that sets one once; taken
// emails, bad input, a missing CSRF token and members change nothing.
func TestOrgInvite(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	orgOtherUser(e, "taken@other.test", lectern.RoleMember, "")
	b := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	b.do("GET", "/dashboard/org", nil)
	tok := b.csrf()
	before := orgUsers(e, e.acme.ID)
	invite := func(email, role string) int {
		return b.do("POST", "/dashboard/org/members", url.Values{"csrf": {tok}, "email": {email}, "role": {role}})
	}

	for _, c := range []struct {
		email, role string
		status      int
		says        string
	}{
		{"Member@ACME.test", "member", http.StatusConflict, "already exists"},
		{"taken@other.test", "owner", http.StatusConflict, "already exists"},
		{"not an email", "member", http.StatusBadRequest, "The email address is not valid"},
		{"", "member", http.StatusBadRequest, "The email address is not valid"},
		{"new@acme.test", "admin", http.StatusBadRequest, "Choose the new user's role"},
	} {
		if s := invite(c.email, c.role); s != c.status || !b.has(c.says) || !strings.Contains(b.body, `role="alert"`) ||
			!strings.Contains(b.body, `id="invite-email" name="email" type="email" required maxlength="254" value="`+c.email+`"`) {
			t.Errorf("invite %q as %q: %d, want %d saying %q with the form filled in again", c.email, c.role, s, c.status, c.says)
		}
	}
	if s := b.do("POST", "/dashboard/org/members", url.Values{"email": {"new@acme.test"}, "role": {"member"}}); s != http.StatusForbidden {
		t.Errorf("invite without CSRF token: %d, want 403", s)
	}
	m := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	m.do("GET", "/dashboard/org", nil)
	if s := m.do("POST", "/dashboard/org/members", url.Values{"csrf": {m.csrf()}, "email": {"new@acme.test"}, "role": {"owner"}}); s != http.StatusForbidden {
		t.Errorf("a member invites: %d, want 403", s)
	}
	if after := orgUsers(e, e.acme.ID); !slices.Equal(before, after) || len(orgUsers(e, e.other.ID)) != 1 {
		t.Fatalf("refused invitations changed the users: %v, want %v", after, before)
	}

	if s := invite(" New@Acme.test ", "owner"); s != 200 {
		t.Fatalf("invite: %d\n%s", s, b.body)
	}
	link, token := orgLink(b)
	if !b.has("new@acme.test") || !b.has("Copy link") || !b.has(`data-copy-from="invite-link"`) ||
		!b.has(e.now.Add(lectern.SignInLinkTTL).UTC().Format("2006-01-02 15:04 UTC")) {
		t.Errorf("the invitation page lacks the email, the copy button or the expiry in 24 hours:\n%s", b.body)
	}
	u, err := e.st.GetUserByEmail(ctx, "new@acme.test")
	if err != nil || u.OrgID != e.acme.ID || u.Role != lectern.RoleOwner || u.PasswordHash != "" {
		t.Fatalf("the invited user: %+v, %v; want an owner of acme without a password", u, err)
	}
	if !strings.HasSuffix(link, "/dashboard/welcome?token="+token) || strings.Contains(e.logs.String(), token) {
		t.Errorf("link %q: want the welcome page on the server's URL, never logged", link)
	}
	b.do("GET", "/dashboard/org", nil)
	if b.has(token) || !b.has("new@acme.test") || !b.has("invitation pending") {
		t.Error("the org page should list the invited user as pending and never show the link again")
	}

	// The link sets a password once, and the user signs in with it.
	const newPW = "an invited user's password"
	e.secrets = append(e.secrets, newPW)
	if s := orgWelcome(e, "192.0.2.3", token, newPW); s != http.StatusSeeOther {
		t.Fatalf("the invitation's link: %d", s)
	}
	if s := orgWelcome(e, "192.0.2.4", token, "a second password here"); s != http.StatusNotFound {
		t.Errorf("the invitation's link used twice: %d, want 404", s)
	}
	orgSignedIn(e, "192.0.2.5", "new@acme.test", newPW)
}

// TestOrgResend: a pending user gets a new working link; one with a
// password, another organization's and a missing one are refused.
func TestOrgResend(t *testing.T) {
	e := newEnv(t, Config{})
	pending := e.user("pending@acme.test", lectern.RoleMember, "")
	stranger := orgOtherUser(e, "stranger@other.test", lectern.RoleMember, "")
	b := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	b.do("GET", "/dashboard/org", nil)
	tok := b.csrf()
	resend := func(b *browser, id, tok string) int {
		return b.do("POST", "/dashboard/org/members/"+id+"/invitation", url.Values{"csrf": {tok}})
	}
	// A member who forgot their password gets a link too; an owner's
	// own password is changed on the account page.
	if s := resend(b, e.member.ID, tok); s != http.StatusOK || !b.has("/dashboard/welcome?token=lsi_") || !b.has("Their current password keeps working") {
		t.Errorf("a new link for a user with a password: %d, want the link and what it does", s)
	}
	if s := resend(b, e.owner.ID, tok); s != http.StatusConflict || !b.has("your account page") {
		t.Errorf("a new link for oneself: %d, want 409 pointing at the account page", s)
	}
	for _, id := range []string{stranger.ID, "usr_01m8bg0dy6vc635tqq4mgns177"} {
		if s := resend(b, id, tok); s != http.StatusNotFound {
			t.Errorf("a new link for %s (another organization's or missing): %d, want 404", id, s)
		}
	}
	if s := resend(b, pending.ID, ""); s != http.StatusForbidden {
		t.Errorf("a new link without CSRF token: %d, want 403", s)
	}
	m := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	m.do("GET", "/dashboard/org", nil)
	if s := resend(m, pending.ID, m.csrf()); s != http.StatusForbidden || m.has("token=") {
		t.Errorf("a member asks for a new link: %d, want 403", s)
	}
	if s := resend(b, pending.ID, tok); s != 200 || !b.has("New sign-in link") {
		t.Fatalf("a new link: %d\n%s", s, b.body)
	}
	_, old := orgLink(b)
	// A second link replaces the first, and says so.
	if s := resend(b, pending.ID, tok); s != 200 || !b.has("The links made for them before no longer work: only this one does.") {
		t.Fatalf("a second new link: %d\n%s", s, b.body)
	}
	_, token := orgLink(b)
	if token == old {
		t.Fatal("the second link is the first one again")
	}
	const pw = "the pending user's password"
	e.secrets = append(e.secrets, pw)
	if s := orgWelcome(e, "192.0.2.3", old, pw); s != http.StatusNotFound {
		t.Errorf("the link made before the newest: %d, want 404 (no longer works)", s)
	}
	if u, _ := e.st.GetUser(context.Background(), pending.ID); u.PasswordHash != "" {
		t.Fatal("the replaced link set a password")
	}
	if s := orgWelcome(e, "192.0.2.3", token, pw); s != http.StatusSeeOther {
		t.Fatalf("the newest link: %d", s)
	}
	orgSignedIn(e, "192.0.2.4", pending.Email, pw)
}

// orgRoleOf returns the stored role of the user id.
func orgRoleOf(e *env, id string) lectern.Role {
	e.t.Helper()
	u, err := e.st.GetUser(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Role
}

// orgOwnerControls are what an owner's organization page offers and a
// member's does not.
var orgOwnerControls = []string{"Invite someone", `action="/dashboard/org/members"`, `/role"`, "/remove", "Change role"}

// TestOrgRole: owners change roles with a labelled select per user;
// members, a missing CSRF token, another organization's user and an
// unknown role are refused; the last owner cannot step down; an owner who
// does while another remains gets a member's pages from then on.
func TestOrgRole(t *testing.T) {
	e := newEnv(t, Config{})
	stranger := orgOtherUser(e, "stranger@other.test", lectern.RoleMember, "")
	b := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	m := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	setRole := func(b *browser, id, role, tok string) int {
		return b.do("POST", "/dashboard/org/members/"+id+"/role", url.Values{"csrf": {tok}, "role": {role}})
	}
	b.do("GET", "/dashboard/org", nil)
	tok := b.csrf()
	for _, want := range []string{`action="/dashboard/org/members/` + e.member.ID + `/role"`,
		`<label for="role-` + e.member.ID + `" class="visually-hidden">Role of member@acme.test</label>`,
		`<select id="role-` + e.member.ID + `" name="role"`, `Change role<span class="visually-hidden"> of member@acme.test</span>`} {
		if !b.has(want) {
			t.Errorf("the owner's org page lacks %q", want)
		}
	}
	if b.has("/dashboard/org/members/" + e.owner.ID + "/role") {
		t.Error("the only owner is offered to change their own role")
	}

	// A member may change no role, and sees no role form.
	m.do("GET", "/dashboard/org", nil)
	if m.has(`/role"`) || m.has("Change role") {
		t.Error("a member's org page offers to change roles")
	}
	if s := setRole(m, e.member.ID, "owner", m.csrf()); s != http.StatusForbidden || !m.has("Only the organization's owners") {
		t.Errorf("a member makes themselves an owner: %d, want 403", s)
	}
	if s := setRole(b, e.member.ID, "owner", ""); s != http.StatusForbidden {
		t.Errorf("a role change without CSRF token: %d, want 403", s)
	}
	for _, id := range []string{stranger.ID, "usr_01m8bg0dy6vc635tqq4mgns177"} {
		if s := setRole(b, id, "owner", tok); s != http.StatusNotFound {
			t.Errorf("the role of %s (another organization's or missing): %d, want 404", id, s)
		}
	}
	if s := setRole(b, e.member.ID, "admin", tok); s != http.StatusBadRequest || !b.has("Choose the new role: owner or member") || !b.has(`role="alert"`) {
		t.Errorf("an unknown role: %d, want 400 saying which roles there are", s)
	}
	// The last owner cannot step down.
	if s := setRole(b, e.owner.ID, "member", tok); s != http.StatusConflict || !b.has("owner@acme.test is the organization's only owner") ||
		!b.has("Nothing changed.") || !b.has(`role="alert"`) || !b.has("Invite someone") {
		t.Errorf("the last owner steps down: %d, want 409 saying why, still an owner's page\n%s", s, b.body)
	}
	if orgRoleOf(e, e.owner.ID) != lectern.RoleOwner || orgRoleOf(e, e.member.ID) != lectern.RoleMember || orgRoleOf(e, stranger.ID) != lectern.RoleMember {
		t.Fatal("a refused role change changed a role")
	}

	// The member becomes an owner, with an owner's page at their next request.
	if s := setRole(b, e.member.ID, "owner", tok); s != 200 || !b.has("member@acme.test is now an owner.") {
		t.Fatalf("promote the member: %d\n%s", s, b.body)
	}
	if orgRoleOf(e, e.member.ID) != lectern.RoleOwner {
		t.Fatal("the promoted member is not an owner")
	}
	if !b.has("/dashboard/org/members/"+e.owner.ID+"/role") || !b.has("/dashboard/org/members/"+e.owner.ID+"/remove") {
		t.Error("with a second owner, the first is not offered to step down or leave")
	}
	m.do("GET", "/dashboard/org", nil)
	for _, want := range orgOwnerControls {
		if !m.has(want) {
			t.Errorf("the promoted member's next page lacks %q", want)
		}
	}

	// The first owner steps down: this page and the next are a member's.
	if s := setRole(b, e.owner.ID, "member", tok); s != 200 || !b.has("You are now a member of the organization.") {
		t.Fatalf("an owner steps down: %d\n%s", s, b.body)
	}
	if orgRoleOf(e, e.owner.ID) != lectern.RoleMember {
		t.Fatal("the owner who stepped down is still an owner")
	}
	for _, page := range []string{"the role change's", "the next"} {
		if page == "the next" {
			if s := b.do("GET", "/dashboard/org", nil); s != 200 {
				t.Fatalf("the org page after stepping down: %d", s)
			}
		}
		for _, no := range orgOwnerControls {
			if b.has(no) {
				t.Errorf("%s page of an owner who stepped down offers %q", page, no)
			}
		}
	}
	if s := setRole(b, e.owner.ID, "owner", tok); s != http.StatusForbidden || orgRoleOf(e, e.owner.ID) != lectern.RoleMember {
		t.Errorf("the former owner makes themselves an owner again: %d, want 403", s)
	}
	// Now the promoted member is the last owner.
	m.do("GET", "/dashboard/org", nil)
	if s := setRole(m, e.member.ID, "member", m.csrf()); s != http.StatusConflict || orgRoleOf(e, e.member.ID) != lectern.RoleOwner {
		t.Errorf("the new last owner steps down: %d, want 409 and still an owner", s)
	}
}

// TestOrgRemove: removal asks first, ends the user's sessions, is refused
// for the last owner, another organization's user and members, and an
// owner who is not the last may remove themselves.
func TestOrgRemove(t *testing.T) {
	e := newEnv(t, Config{})
	ctx := context.Background()
	stranger := orgOtherUser(e, "stranger@other.test", lectern.RoleOwner, "")
	m := orgSignedIn(e, "192.0.2.2", "member@acme.test", memberPW)
	b := orgSignedIn(e, "192.0.2.1", "owner@acme.test", ownerPW)
	b.do("GET", "/dashboard/org", nil)
	tok := b.csrf()
	exists := func(id string) bool { _, err := e.st.GetUser(ctx, id); return err == nil }

	// A member may not remove anyone.
	m.do("GET", "/dashboard/org", nil)
	mtok := m.csrf()
	for _, method := range []string{"GET", "POST"} {
		if s := m.do(method, "/dashboard/org/members/"+e.owner.ID+"/remove", url.Values{"csrf": {mtok}}); s != http.StatusForbidden {
			t.Errorf("a member %s removes the owner: %d, want 403", method, s)
		}
	}
	// Another organization's user is unknown.
	for _, method := range []string{"GET", "POST"} {
		if s := b.do(method, "/dashboard/org/members/"+stranger.ID+"/remove", url.Values{"csrf": {tok}}); s != http.StatusNotFound {
			t.Errorf("%s remove another organization's user: %d, want 404", method, s)
		}
	}
	// The last owner stays.
	for _, method := range []string{"GET", "POST"} {
		if s := b.do(method, "/dashboard/org/members/"+e.owner.ID+"/remove", url.Values{"csrf": {tok}}); s != http.StatusConflict || !b.has("only owner") {
			t.Errorf("%s remove the last owner: %d, want 409 saying why", method, s)
		}
	}
	if s := b.do("POST", "/dashboard/org/members/"+e.member.ID+"/remove", url.Values{}); s != http.StatusForbidden {
		t.Errorf("remove without CSRF token: %d, want 403", s)
	}
	if !exists(e.owner.ID) || !exists(e.member.ID) || !exists(stranger.ID) {
		t.Fatal("a refused removal removed a user")
	}

	if s := b.do("GET", "/dashboard/org/members/"+e.member.ID+"/remove", nil); s != 200 || !b.has("Remove member") || !b.has(e.member.Email) {
		t.Fatalf("removal confirmation: %d\n%s", s, b.body)
	}
	if !exists(e.member.ID) {
		t.Fatal("the confirmation page removed the user")
	}
	if s := b.do("POST", "/dashboard/org/members/"+e.member.ID+"/remove", url.Values{"csrf": {tok}}); s != 200 || !b.has("Removed member@acme.test") {
		t.Fatalf("remove: %d\n%s", s, b.body)
	}
	if exists(e.member.ID) {
		t.Error("the removed user is still there")
	}
	if s := m.do("GET", "/dashboard/org", nil); s != http.StatusSeeOther {
		t.Errorf("the removed user's session still works: %d", s)
	}

	// With a second owner, the first may leave.
	second := e.user("second@acme.test", lectern.RoleOwner, "second owner password")
	if s := b.do("GET", "/dashboard/org/members/"+e.owner.ID+"/remove", nil); s != 200 || !b.has("Remove myself") {
		t.Fatalf("confirm removing oneself: %d", s)
	}
	if s := b.do("POST", "/dashboard/org/members/"+e.owner.ID+"/remove", url.Values{"csrf": {tok}}); s != http.StatusSeeOther ||
		!strings.HasPrefix(b.last.Header.Get("Location"), "/dashboard/signin") {
		t.Fatalf("remove oneself: %d to %q, want 303 to sign in", s, b.last.Header.Get("Location"))
	}
	if exists(e.owner.ID) || !exists(second.ID) {
		t.Error("removing oneself: want the first owner gone and the second kept")
	}
	if s := b.do("GET", "/dashboard/org", nil); s != http.StatusSeeOther {
		t.Errorf("the removed owner's browser is still signed in: %d", s)
	}
}

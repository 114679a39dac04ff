package actions_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lectern.dev/lectern"
	"lectern.dev/lectern/actions"
	"lectern.dev/lectern/store"
	"lectern.dev/lectern/store/sqlite"
)

// TestUsers: users are made with a one-time link on the public URL,
// emails are unique across organizations, another organization's user is
// not found, and the last owner cannot be removed.
func TestUsers(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	ops := &actions.Service{Store: st, Now: func() time.Time { return now }}
	acme, other := &lectern.Organization{Name: "Acme", Plan: lectern.PlanFree}, &lectern.Organization{Name: "Other", Plan: lectern.PlanFree}
	for _, o := range []*lectern.Organization{acme, other} {
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}

	owner := &lectern.User{Email: " Ada@Acme.Test", Role: lectern.RoleOwner}
	link, err := ops.AddUser(ctx, acme.ID, owner, "https://lectern.acme.test/")
	if err != nil {
		t.Fatal(err)
	}
	tok, ok := strings.CutPrefix(link.URL, "https://lectern.acme.test/dashboard/welcome?token=")
	if !ok || !strings.HasPrefix(tok, lectern.SignInTokenPrefix) || !link.ExpiresAt.Equal(now.Add(lectern.SignInLinkTTL)) {
		t.Fatalf("link %+v: want the welcome page on the public URL, valid 24 hours", link)
	}
	if owner.OrgID != acme.ID || owner.Email != "ada@acme.test" || !owner.CreatedAt.Equal(now) {
		t.Errorf("the user as created: %+v", owner)
	}
	if u, err := st.UseSignInToken(ctx, lectern.HashToken(tok), now); err != nil || u.ID != owner.ID {
		t.Errorf("the link's token: %v, %v; want the user's", u, err)
	}
	withPW := &lectern.User{Email: "bob@acme.test", Role: lectern.RoleMember, PasswordHash: "$argon2id$stand-in"}
	if link, err := ops.AddUser(ctx, acme.ID, withPW, "https://x.test"); err != nil || link != nil {
		t.Errorf("a user with a password: link %v, %v; want none", link, err)
	}

	_, err = ops.AddUser(ctx, other.ID, &lectern.User{Email: "ADA@acme.test", Role: lectern.RoleMember}, "https://x.test")
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(lectern.ErrorMessage(err), "already exists") {
		t.Errorf("an email taken in another organization: %v, want ECONFLICT", err)
	}
	if users, _ := ops.Users(ctx, other.ID); len(users) != 0 {
		t.Errorf("a refused user was stored: %v", users)
	}
	if _, err := ops.Users(ctx, ""); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("users of no organization: %v, want ENOTFOUND (not every organization's)", err)
	}

	stranger := &lectern.User{Email: "cy@other.test", Role: lectern.RoleOwner}
	if _, err := ops.AddUser(ctx, other.ID, stranger, "https://x.test"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{stranger.ID, "usr_missing"} {
		if _, err := ops.User(ctx, acme.ID, id); lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("acme's user %s: %v, want ENOTFOUND", id, err)
		}
		if _, err := ops.RemoveUser(ctx, acme.ID, id); lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("remove acme's user %s: %v, want ENOTFOUND", id, err)
		}
		if _, _, err := ops.ResendInvitation(ctx, acme.ID, id, "https://x.test"); lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("resend to acme's user %s: %v, want ENOTFOUND", id, err)
		}
	}
	if _, err := st.GetUser(ctx, stranger.ID); err != nil {
		t.Fatal("another organization's user was removed")
	}

	// A user with a password gets a new link too (a forgotten password),
	// and so does one without.
	if _, link, err := ops.ResendInvitation(ctx, acme.ID, withPW.ID, "https://x.test"); err != nil || !strings.HasPrefix(link.URL, "https://x.test/dashboard/welcome?token=lsi_") {
		t.Errorf("a new link for a user with a password: %+v, %v", link, err)
	}
	if _, link, err := ops.ResendInvitation(ctx, other.ID, stranger.ID, "https://y.test"); err != nil || !strings.HasPrefix(link.URL, "https://y.test/dashboard/welcome?token=lsi_") {
		t.Errorf("a new link: %+v, %v", link, err)
	}
	// Only the newest link works: the earlier ones are dropped with it.
	_, first, err := ops.ResendInvitation(ctx, other.ID, stranger.ID, "https://y.test")
	if err != nil {
		t.Fatal(err)
	}
	_, newest, err := ops.ResendInvitation(ctx, other.ID, stranger.ID, "https://y.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		link *actions.SignInLink
		ok   bool
	}{{"an earlier link", first, false}, {"the newest link", newest, true}} {
		_, tok, _ := strings.Cut(c.link.URL, "token=")
		u, err := st.UseSignInToken(ctx, lectern.HashToken(tok), now)
		if got := err == nil && u.ID == stranger.ID; got != c.ok {
			t.Errorf("%s works: %v (%v), want %v", c.what, got, err, c.ok)
		}
	}

	// The last owner stays; a member goes; with two owners one may go.
	if _, err := ops.RemoveUser(ctx, acme.ID, owner.ID); lectern.ErrorCode(err) != lectern.ECONFLICT {
		t.Errorf("remove the last owner: %v, want ECONFLICT", err)
	}
	if _, err := ops.RemoveUser(ctx, acme.ID, withPW.ID); err != nil {
		t.Errorf("remove a member: %v", err)
	}
	second := &lectern.User{Email: "dee@acme.test", Role: lectern.RoleOwner}
	if _, err := ops.AddUser(ctx, acme.ID, second, "https://x.test"); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.RemoveUser(ctx, acme.ID, owner.ID); err != nil {
		t.Errorf("remove an owner who is not the last: %v", err)
	}
	if users, _ := ops.Users(ctx, acme.ID); len(users) != 1 || users[0].ID != second.ID || !actions.LastOwner(users, second) {
		t.Errorf("acme's users: %v, want the second owner, now the last", users)
	}
}

// usersRace is a store in which another owner acts just before each
// role change or removal: what two owners acting at once look like to the
// one whose request runs second.
type usersRace struct {
	store.Store
	first func()
}

func (r *usersRace) race() {
	if f := r.first; f != nil {
		r.first = nil
		f()
	}
}

func (r *usersRace) SetUserRole(ctx context.Context, id string, role lectern.Role) (*lectern.User, error) {
	r.race()
	return r.Store.SetUserRole(ctx, id, role)
}

func (r *usersRace) DeleteMember(ctx context.Context, id string) error {
	r.race()
	return r.Store.DeleteMember(ctx, id)
}

func (r *usersRace) DeleteUser(ctx context.Context, id string) error {
	r.race()
	return r.Store.DeleteUser(ctx, id)
}

// TestUsersRole: roles change within the organization only, to owner or
// member, and neither a demotion nor a removal leaves it without an
// owner, even when the other owner left a moment before (the store, not
// a list read earlier, decides).
func TestUsersRole(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "lectern.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs := &usersRace{Store: st}
	ops := &actions.Service{Store: rs}
	acme, other := &lectern.Organization{Name: "Acme", Plan: lectern.PlanFree}, &lectern.Organization{Name: "Other", Plan: lectern.PlanFree}
	for _, o := range []*lectern.Organization{acme, other} {
		if err := st.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	add := func(org, email string, role lectern.Role) *lectern.User {
		u := &lectern.User{OrgID: org, Email: email, Role: role, PasswordHash: "$argon2id$stand-in"}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	ada, bob := add(acme.ID, "ada@acme.test", lectern.RoleOwner), add(acme.ID, "bob@acme.test", lectern.RoleMember)
	cy := add(other.ID, "cy@other.test", lectern.RoleMember)
	role := func(u *lectern.User) lectern.Role {
		t.Helper()
		got, err := st.GetUser(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Role
	}

	for _, id := range []string{cy.ID, "usr_missing"} {
		if _, err := ops.SetRole(ctx, acme.ID, id, lectern.RoleOwner); lectern.ErrorCode(err) != lectern.ENOTFOUND {
			t.Errorf("set the role of acme's user %s: %v, want ENOTFOUND", id, err)
		}
	}
	if _, err := ops.SetRole(ctx, "", cy.ID, lectern.RoleOwner); lectern.ErrorCode(err) != lectern.ENOTFOUND {
		t.Errorf("set a role in no organization: %v, want ENOTFOUND", err)
	}
	if _, err := ops.SetRole(ctx, acme.ID, bob.ID, "admin"); lectern.ErrorCode(err) != lectern.EINVALID {
		t.Errorf("an unknown role: %v, want EINVALID", err)
	}
	_, err = ops.SetRole(ctx, acme.ID, ada.ID, lectern.RoleMember)
	if lectern.ErrorCode(err) != lectern.ECONFLICT || !strings.Contains(lectern.ErrorMessage(err), "ada@acme.test is the organization's only owner") {
		t.Errorf("demote the last owner: %v, want ECONFLICT naming them", err)
	}
	if role(cy) != lectern.RoleMember || role(bob) != lectern.RoleMember || role(ada) != lectern.RoleOwner {
		t.Fatal("a refused role change changed a role")
	}

	if u, err := ops.SetRole(ctx, acme.ID, bob.ID, " Owner"); err != nil || u.Role != lectern.RoleOwner || role(bob) != lectern.RoleOwner {
		t.Fatalf("promote a member: %+v, %v", u, err)
	}
	// Bob steps down a moment before Ada does: Ada stays an owner.
	rs.first = func() {
		if _, err := st.SetUserRole(ctx, bob.ID, lectern.RoleMember); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops.SetRole(ctx, acme.ID, ada.ID, lectern.RoleMember); lectern.ErrorCode(err) != lectern.ECONFLICT || role(ada) != lectern.RoleOwner {
		t.Errorf("demote an owner whose co-owner just stepped down: %v, role %s; want ECONFLICT and still owner", err, role(ada))
	}
	// Bob is removed a moment before Ada is: Ada stays.
	if _, err := ops.SetRole(ctx, acme.ID, bob.ID, lectern.RoleOwner); err != nil {
		t.Fatal(err)
	}
	rs.first = func() {
		if err := st.DeleteUser(ctx, bob.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops.RemoveUser(ctx, acme.ID, ada.ID); lectern.ErrorCode(err) != lectern.ECONFLICT {
		t.Errorf("remove an owner whose co-owner was just removed: %v, want ECONFLICT", err)
	}
	if users, _ := ops.Users(ctx, acme.ID); len(users) != 1 || users[0].ID != ada.ID || users[0].Role != lectern.RoleOwner {
		t.Errorf("acme's users: %v, want Ada, still an owner", users)
	}
	// With another owner, an owner may become a member.
	dee := add(acme.ID, "dee@acme.test", lectern.RoleOwner)
	if u, err := ops.SetRole(ctx, acme.ID, ada.ID, lectern.RoleMember); err != nil || u.Role != lectern.RoleMember || role(dee) != lectern.RoleOwner {
		t.Errorf("demote an owner who is not the last: %+v, %v", u, err)
	}
}

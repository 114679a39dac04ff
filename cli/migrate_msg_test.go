package cli

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lectern.dev/lectern"
	"lectern.dev/lectern/store/postgres/pgtest"
)

// TestMigrateSaysWhatItDid: lectern migrate says which migrations it
// applied and the schema version now, and on a second run that there was
// nothing to apply, on both stores.
func TestMigrateSaysWhatItDid(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	check := func(t *testing.T, label string, args ...string) {
		t.Helper()
		applied := regexp.MustCompile(`^database ` + regexp.QuoteMeta(label) +
			`: applied migrations 1 to ([1-9][0-9]*); the database is now at schema version ([1-9][0-9]*)\n$`)
		out, stderr, err := runArgs(args...)
		m := applied.FindStringSubmatch(out)
		if err != nil || m == nil || m[1] != m[2] {
			t.Fatalf("first migrate: %v, printed %q %s", err, out, stderr)
		}
		again, stderr, err := runArgs(args...)
		if want := "database " + label + ": nothing to apply: already at schema version " + m[2] + "\n"; err != nil || again != want {
			t.Errorf("second migrate: %v, printed %q, want %q %s", err, again, want, stderr)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		check(t, "sqlite://"+filepath.Join(data, "lectern.db"), "migrate", "--data-dir", data)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := pgtest.URL(t)
		// As written, but for a password TEST_DATABASE_URL may have.
		check(t, lectern.RedactURL(dsn), "migrate", "--database-url", dsn)
	})
}

// TestMigrateErrorRedactsOnlyThePassword: the database URL in an error
// keeps the user name, database and settings, and hides the password and
// secret settings as a readable ***.
func TestMigrateErrorRedactsOnlyThePassword(t *testing.T) {
	t.Parallel()
	// Port 1 refuses at once: nothing leaves the machine.
	_, _, err := runArgs("migrate", "--database-url", "postgres://lectern:hunter2@127.0.0.1:1/lectern?sslmode=disable&sslpassword=hunter3&connect_timeout=2")
	if err == nil {
		t.Fatal("migrate on a closed port succeeded")
	}
	msg := err.Error()
	if !strings.Contains(msg, "postgres://lectern:***@127.0.0.1:1/lectern?sslmode=disable&sslpassword=***&connect_timeout=2") {
		t.Errorf("error %q does not name the database readably", msg)
	}
	for _, secret := range []string{"hunter2", "hunter3", "%2A"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q shows %q", msg, secret)
		}
	}
}

func TestMigrateSummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		applied []int
		version int
		want    string
	}{
		{nil, 12, "nothing to apply: already at schema version 12"},
		{[]int{12}, 12, "applied migration 12; the database is now at schema version 12"},
		{[]int{11, 12}, 12, "applied migrations 11 to 12; the database is now at schema version 12"},
		{[]int{1, 2, 3, 4}, 4, "applied migrations 1 to 4; the database is now at schema version 4"},
		// Another process applied 11 at the same time.
		{[]int{10, 12}, 12, "applied migrations 10, 12; the database is now at schema version 12"},
	} {
		if got := migrateSummary(c.applied, c.version); got != c.want {
			t.Errorf("migrateSummary(%v, %d) = %q, want %q", c.applied, c.version, got, c.want)
		}
	}
}

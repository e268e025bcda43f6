package store

import (
	"strings"
	"testing"
)

func TestReproducibleConfig(t *testing.T) {
	// A config without a PostgreSQL store is printed as stored.
	if got, note := ReproducibleConfig("experiment: e\nstore: /data/k.db\n"); got != "experiment: e\nstore: /data/k.db\n" || note != "" {
		t.Fatalf("a SQLite store's config was changed: %q %q", got, note)
	}
	// A redacted password is left out, with a comment and a note that say
	// it must be supplied; the rest is kept.
	got, note := ReproducibleConfig("experiment: e\nstore: postgres://ci:" + Redacted + "@db.example:5432/kregress\nrepetitions: 5\n")
	if strings.Contains(got, Redacted) || !strings.Contains(got, "store: postgres://ci@db.example:5432/kregress\n") ||
		!strings.Contains(got, "# The store's password was redacted") || !strings.HasPrefix(got, "experiment: e\n") || !strings.HasSuffix(got, "repetitions: 5\n") {
		t.Errorf("redacted store:\n%s", got)
	}
	if !strings.Contains(note, "was redacted") || !strings.Contains(note, "PGPASSWORD") {
		t.Errorf("note %q", note)
	}
}

package store

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
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

// WriteReproducibleConfig writes the configuration alone to w and its
// note, naming the run, to say; without a note say gets nothing.
func TestWriteReproducibleConfig(t *testing.T) {
	var out, say strings.Builder
	run := &results.Run{ID: 12, Config: "experiment: e\nstore: postgres://ci:" + Redacted + "@db.example:5432/kregress\n"}
	if err := WriteReproducibleConfig(&out, &say, run); err != nil {
		t.Fatal(err)
	}
	text, note := ReproducibleConfig(run.Config)
	if out.String() != text || say.String() != "kregress: run 12: "+note+"\n" || note == "" {
		t.Errorf("wrote %q, said %q", out.String(), say.String())
	}
	out.Reset()
	say.Reset()
	run.Config = "experiment: e\n"
	if err := WriteReproducibleConfig(&out, &say, run); err != nil || out.String() != run.Config || say.Len() != 0 {
		t.Errorf("without a note: wrote %q, said %q, %v", out.String(), say.String(), err)
	}
}

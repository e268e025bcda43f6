package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// An imported run is a new run of the store, saying where it came from;
// a file that is no export is refused with nothing stored.
func TestImport(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunComplete, []string{"a"})
	path := filepath.Join(dir, "run.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, r, nil); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run, _, err := Import(ctx, s, path)
	if err != nil {
		t.Fatal(err)
	}
	if run.ID == r.ID || !strings.Contains(run.Error, "(imported from run.json, run 1 there)") {
		t.Fatalf("imported: id %d (exported %d), %q", run.ID, r.ID, run.Error)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{}"), 0o644)
	if _, _, err := Import(ctx, s, bad); err == nil {
		t.Fatal("a file that is no export was imported")
	}
	if runs, _ := s.FindRuns(ctx, results.Filter{}); len(runs) != 2 {
		t.Fatalf("%d runs stored, want the exported one and its import", len(runs))
	}
}

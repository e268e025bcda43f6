package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// An imported run is a new run of the store, saying where it came from;
// a file that is no export is refused with nothing stored.
func TestImport(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s, err := store.OpenSQLite(filepath.Join(dir, "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
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

package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// TestVariantWithCommaRefused: variants are stored comma-joined, so a
// variant "x,y" came back from the store as two variants; it is refused
// (a usage error) and nothing is stored.
func TestVariantWithCommaRefused(t *testing.T) {
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, run := range []*results.Run{
		{Experiment: "e", Family: "f", Baseline: "base", Variants: []string{"base", "x,y"}, Status: results.RunRunning},
		{Experiment: "e", Family: "f", Baseline: "a,b", Variants: []string{"a,b", "c"}, Status: results.RunRunning},
	} {
		err := s.CreateRun(ctx, run)
		if err == nil {
			got, _ := s.GetRun(ctx, run.ID)
			t.Errorf("run with variants %q stored; read back as %q", run.Variants, got.Variants)
			continue
		}
		if !usage.Is(err) {
			t.Errorf("variants %q: %v, want a usage error", run.Variants, err)
		}
		if err := s.ImportRun(ctx, run, nil); !usage.Is(err) {
			t.Errorf("import of variants %q: %v, want a usage error", run.Variants, err)
		}
	}
	if runs, err := s.ListRuns(ctx, 10); err != nil || len(runs) != 0 {
		t.Errorf("runs stored: %d, %v", len(runs), err)
	}
}

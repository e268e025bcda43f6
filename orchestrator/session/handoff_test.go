package session

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// A stored bisect of the same search is found again (nightly --bisect
// resumes it); another metric, variant, range or kind is not.
func TestFindBisect(t *testing.T) {
	db, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	spec := &bisect.Spec{Experiment: "/e.yaml", GitTree: "/linux", Good: "aaaa", Bad: "bbbb", Names: []string{"a", "m", "b"}, Metric: "m1", Variant: "v"}
	data, _ := json.Marshal(spec)
	b := &results.Bisect{Experiment: "e", Status: results.RunComplete, Spec: string(data), State: "{}"}
	if err := db.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(s *bisect.Spec)
		want int64
	}{
		{func(*bisect.Spec) {}, b.ID},
		{func(s *bisect.Spec) { s.Metric = "m2" }, 0},
		{func(s *bisect.Spec) { s.Variant = "w" }, 0},
		{func(s *bisect.Spec) { s.Names = []string{"a", "c"} }, 0},
		{func(s *bisect.Spec) { s.Crash = true }, 0},
	} {
		s := *spec
		tc.edit(&s)
		if got, err := findBisect(ctx, db, &s); err != nil || got != tc.want {
			t.Errorf("found %d, want %d (%v)", got, tc.want, err)
		}
	}
}

func TestCacheKey(t *testing.T) {
	if a, b := CacheKey("x"), CacheKey("y"); len(a) != 12 || a == b || a != CacheKey("x") {
		t.Fatalf("CacheKey: %q %q", a, b)
	}
}

package storetest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// SQLite is a fresh SQLite store in t's temporary directory, closed
// when t ends: for the tests of packages that read and write runs.
func SQLite(t *testing.T) *store.Store {
	t.Helper()
	return SQLiteIn(t, t.TempDir())
}

// SQLiteIn opens the SQLite store kregress keeps in dir (its
// kregress.db, made when missing), closed when t ends: for tests that
// read what a run of kregress stored there.
func SQLiteIn(t *testing.T, dir string) *store.Store {
	t.Helper()
	s, err := store.OpenSQLite(filepath.Join(dir, "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// AddRun stores a run of experiment "e" started now with variants (the
// first is the baseline), finished with status unless that is running,
// and one cell per entry of cells: the variant and its status.
func AddRun(t *testing.T, s results.Store, status results.RunStatus, variants []string, cells ...Cell) *results.Run {
	t.Helper()
	ctx := t.Context()
	r := &results.Run{Experiment: "e", Family: "f", Baseline: variants[0], Variants: variants, Status: results.RunRunning, Config: "x: 1", StartedAt: time.Now()}
	createRun(t, s, r)
	for i, c := range cells {
		addResult(t, s, &results.Result{RunID: r.ID, Variant: c.Variant, Repetition: i + 1, Seq: i + 1, Status: c.Status,
			Metrics: []agentproto.Metric{{Name: "m", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 1}}})
	}
	if status != results.RunRunning {
		if err := s.FinishRun(ctx, r.ID, status, ""); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// Cell is one cell AddRun stores.
type Cell struct {
	Variant string
	Status  results.Status
}

// AddReadsRun stores a complete rstat-relock run with the configuration
// config and reps cells of each variant (the first is the baseline), each
// reporting reads_per_sec around 2400: a run a diff can judge, for the
// tests of what a diff says about it.
func AddReadsRun(t *testing.T, s results.Store, config string, variants []string, reps int) *results.Run {
	t.Helper()
	ctx := t.Context()
	r := &results.Run{Experiment: "rstat-relock", Family: family, Baseline: variants[0], Variants: variants, StartedAt: time.Now(), Status: results.RunRunning, Config: config}
	createRun(t, s, r)
	for i := 0; i < reps; i++ {
		for j, v := range variants {
			addResult(t, s, &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: len(variants)*i + j + 1, Status: results.StatusOK,
				Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i+j)}}})
		}
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	return r
}

package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// TestCorruptStoreErrorsNameTheStore: a store whose data pages are
// damaged (its schema still readable) fails its reads with an error that
// names the store, not a bare "database disk image is malformed".
func TestCorruptStoreErrorsNameTheStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "corrupt.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a", "b"}, Status: results.RunRunning}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	var rs []*results.Result
	for i := 0; i < 300; i++ {
		rs = append(rs, &results.Result{Variant: "a", Repetition: i + 1, Status: results.StatusOK, Error: strings.Repeat("e", 2000),
			Metrics: []agentproto.Metric{{Name: "m", Unit: "u", Direction: agentproto.LowerIsBetter, Value: float64(i)}}})
	}
	imported := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, Status: results.RunComplete}
	if err := s.ImportRun(ctx, imported, rs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Damage the second half of the file: the results' pages.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(data) / 2; i < len(data); i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	failed := 0
	check := func(what string, err error) {
		if err == nil {
			return
		}
		failed++
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v: does not name the store", what, err)
		}
	}
	// Refused on open, read-only or not, with what SQLite found.
	for name, open := range map[string]func(string) (*Store, error){"read-only": OpenSQLiteReadOnly, "read-write": OpenSQLite} {
		if s, err := open(path); err == nil || !strings.Contains(err.Error(), "results store "+path+" is damaged: SQLite's quick_check says") {
			if s != nil {
				s.Close()
			}
			t.Errorf("%s open of a damaged store: %v", name, err)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(data) {
		t.Fatalf("the damaged store was changed by the refusals (%v)", err)
	}
	// Reads through a store opened before the damage still name it.
	ro, err := openDialectReadOnly(sqlite, mustReadOnlyDSN(t, path), Redact(path))
	check("open", err)
	if err != nil {
		return
	}
	defer ro.Close()
	_, err = ro.ListRuns(ctx, 10)
	check("list runs", err)
	_, err = ro.GetRun(ctx, imported.ID)
	check("get run", err)
	_, err = ro.Results(ctx, imported.ID)
	check("results", err)
	if failed == 0 {
		t.Fatal("the damaged store read without an error: the test damaged nothing it reads")
	}
}

func mustReadOnlyDSN(t *testing.T, path string) string {
	t.Helper()
	spec, err := sqliteReadOnlyDSN(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The check on open reads every page: its time on a store of some size
// is logged (not asserted), to weigh it against the commands it guards.
func TestIntactCheckCost(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.db")
	s, err := OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var rs []*results.Result
	for i := 0; i < 5000; i++ {
		rs = append(rs, &results.Result{Variant: "a", Repetition: i + 1, Status: results.StatusOK, Error: strings.Repeat("e", 4000),
			Metrics: []agentproto.Metric{{Name: "m", Unit: "u", Direction: agentproto.LowerIsBetter, Value: float64(i)}}})
	}
	if err := s.ImportRun(ctx, &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, Status: results.RunComplete}, rs); err != nil {
		t.Fatal(err)
	}
	s.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	s.Close()
	st, _ := os.Stat(path)
	start := time.Now()
	ro, err := OpenSQLiteReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	t.Logf("a %d MB store opened and checked in %v", st.Size()>>20, time.Since(start))
}

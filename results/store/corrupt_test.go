package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	ro, err := OpenSQLiteReadOnly(path)
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

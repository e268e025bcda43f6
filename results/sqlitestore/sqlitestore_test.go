package sqlitestore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "x"},
		StartedAt: time.Now(), Status: results.RunRunning, Config: "a: 1", Host: results.Host{Cores: 2}}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	r := &results.Result{RunID: run.ID, Variant: "stock", Repetition: 1, Seq: 1, Status: results.StatusOK,
		StartedAt: time.Now(), FinishedAt: time.Now(), Provenance: results.Provenance{Accel: "tcg", PatchSHA256s: []string{"ab"}},
		Metrics:        []report.Metric{{Name: "m", Unit: "u", Direction: report.LowerIsBetter, Value: 1.5}},
		IrqsoffHolder:  "cgroup_rstat_flush",
		IrqsoffWorstUS: 42}
	if err := s.AddResult(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, run.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = Open(path) // reopen: migrations are idempotent
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.LatestRun(ctx, "")
	if err != nil || got.Status != results.RunComplete || got.Host.Cores != 2 || len(got.Variants) != 2 {
		t.Fatalf("run %+v %v", got, err)
	}
	rs, err := s.Results(ctx, run.ID)
	if err != nil || len(rs) != 1 {
		t.Fatalf("results %v %v", rs, err)
	}
	if rs[0].Provenance.Accel != "tcg" || rs[0].Metrics[0].Value != 1.5 || rs[0].Metrics[0].Direction != report.LowerIsBetter || rs[0].IrqsoffHolder != "cgroup_rstat_flush" {
		t.Fatalf("result %+v", rs[0])
	}
	if _, err := s.GetRun(ctx, 99); err == nil || !strings.Contains(err.Error(), "no run 99") {
		t.Fatalf("missing run: %v", err)
	}
}

func TestForeignFileIsRefusedUntouched(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	junk := []byte("this is not a database, it is someone's notes\n")
	os.WriteFile(path, junk, 0o644)
	if _, err := Open(path); err == nil {
		t.Fatal("opened a text file as a store")
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(junk) {
		t.Fatal("foreign file modified")
	}
}

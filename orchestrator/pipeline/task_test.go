package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/store/storetest"
)

// A cell stored twice (a Kubernetes per-index retry of a task) is one
// cell: the run is not complete while cell 2 has not run, and completes
// once it has, through the task that finds its cell measured.
func TestTaskCellStoredTwiceDoesNotCompleteTheRun(t *testing.T) {
	noRunner := func() (*CellRunner, error) { t.Fatal("a measured cell was measured again"); return nil, nil }
	s, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a", "b"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	s.DetachRun(ctx, run.ID)
	job := &CellJob{RunID: run.ID, Cells: []Cell{{Seq: 1, Variant: "a", Repetition: 1}, {Seq: 2, Variant: "b", Repetition: 1}}}
	for i := 0; i < 2; i++ {
		if err := s.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "a", Repetition: 1, Seq: 1, Status: results.StatusOK}); err != nil {
			t.Fatal(err)
		}
		// The retried task: its cell is measured, so nothing runs (no
		// runner is needed).
		out, err := job.RunTask(ctx, s, noRunner, 0, "test")
		if err != nil || out.Measured || out.Result.Seq != 1 {
			t.Fatalf("retried task: %+v, %v", out, err)
		}
	}
	if got, _ := s.GetRun(ctx, run.ID); got.Status != results.RunRunning {
		t.Fatalf("cell 1 stored twice made the run %s; cell 2 never ran", got.Status)
	}
	if err := s.AddResult(ctx, &results.Result{RunID: run.ID, Variant: "b", Repetition: 1, Seq: 2, Status: results.StatusCrashed}); err != nil {
		t.Fatal(err)
	}
	if _, err := job.RunTask(ctx, s, noRunner, 1, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.GetRun(ctx, run.ID)
	if got.Status != results.RunComplete || got.Error != NotOK([]*results.Result{{Status: results.StatusOK}, {Status: results.StatusCrashed}}, 2) || got.Error == "" {
		t.Fatalf("with both cells stored the run is %s %q", got.Status, got.Error)
	}
	if _, err := job.RunTask(ctx, s, noRunner, 2, "test"); err == nil {
		t.Fatal("cell 2 of a two-cell job was run")
	}
}

// A task reads its job before it opens the store, and says on its log
// what it did: here, that its cell already had a result (no runner, no
// QEMU needed), with the executor's label unused as nothing was measured.
func TestCellTaskRun(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "kregress.db")
	run := storetest.AddRun(t, storetest.SQLiteIn(t, dir), results.RunRunning, []string{"a", "b"}, storetest.Cell{Variant: "a", Status: results.StatusOK})
	ctx := context.Background()
	jobFile := filepath.Join(dir, "job.json")
	job := &CellJob{RunID: run.ID, Cells: []Cell{{Seq: 1, Variant: "a", Repetition: 1}, {Seq: 2, Variant: "b", Repetition: 1}}}
	if err := job.WriteFile(jobFile); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := (CellTask{Job: jobFile, Index: 2}).Run(ctx, filepath.Join(dir, "none", "x.db"), progress.Discard, &log); !usage.Is(err) || log.Len() != 0 {
		t.Fatalf("cell 2 of 2: %v, log %q; want a usage error before the store is opened", err, log.String())
	}
	if err := (CellTask{Job: jobFile, Index: 0, Executor: "test"}).Run(ctx, spec, progress.Discard, &log); err != nil || !strings.HasPrefix(log.String(), fmt.Sprintf("run %d cell 1 (a rep 1) already has a result (ok", run.ID)) {
		t.Fatalf("cell 0, measured before: %v, log %q", err, log.String())
	}
}

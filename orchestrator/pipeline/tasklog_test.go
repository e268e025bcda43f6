package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// What is wrong with a task's job file or cell index is the caller's
// (exit 2), found before the store is opened.
func TestReadCellTask(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "job.json")
	data, _ := json.Marshal(&CellJob{RunID: 12, Cells: []Cell{{Seq: 1}, {Seq: 2}}})
	os.WriteFile(path, data, 0o644)
	if job, err := ReadCellTask(path, 1); err != nil || job.RunID != 12 {
		t.Fatalf("cell 1 of 2: %+v, %v", job, err)
	}
	_, err := ReadCellTask(path, 2)
	if !usage.Is(err) || err.Error() != "--index 2: the job has cells 0..1" {
		t.Fatalf("cell 2 of 2: %v", err)
	}
	if _, err := ReadCellTask(filepath.Join(dir, "missing.json"), 0); !usage.Is(err) {
		t.Fatalf("no job file: %v", err)
	}
}

// The task's log line says what it stored, or that it kept an earlier
// attempt's result.
func TestTaskOutcomeLine(t *testing.T) {
	res := &results.Result{Seq: 3, Variant: "patched", Repetition: 2, Status: results.StatusCrashed, Error: "kernel panic\nmore", FinishedAt: time.Date(2026, 12, 5, 22, 0, 0, 0, time.UTC)}
	if got := (&TaskOutcome{Result: res, Measured: true}).Line(12); got != "run 12 cell 3 (patched rep 2): crashed: kernel panic" {
		t.Errorf("measured: %q", got)
	}
	if got := (&TaskOutcome{Result: res}).Line(12); got != "run 12 cell 3 (patched rep 2) already has a result (crashed, stored 2026-12-05T22:00:00Z): not measured again" {
		t.Errorf("kept: %q", got)
	}
	res.Superseded = true
	if got := (&TaskOutcome{Result: res, Measured: true}).Line(12); !strings.HasSuffix(got, "(another attempt stored this cell's result first; this one is kept as history)") {
		t.Errorf("superseded: %q", got)
	}
}

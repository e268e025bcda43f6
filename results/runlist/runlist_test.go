package runlist

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

func TestState(t *testing.T) {
	alive := func(pid int) bool { return pid == 7 }
	for _, c := range []struct {
		run          results.Run
		status, note string
	}{
		{results.Run{Status: results.RunComplete, Error: "first\nsecond"}, "complete", "first"},
		{results.Run{ID: 3, Status: results.RunRunning, Owner: results.RunOwner{Hostname: "here", PID: 7}}, "running", "kregress pid 7 on this host"},
		{results.Run{ID: 3, Status: results.RunRunning, Owner: results.RunOwner{Hostname: "here", PID: 8}}, "running (process gone)", "kregress run --resume 3"},
		{results.Run{ID: 3, Status: results.RunRunning, Owner: results.RunOwner{Hostname: "there", PID: 7}}, "running on there", "kregress results mark-interrupted 3"},
		{results.Run{ID: 3, Status: results.RunRunning, Owner: results.RunOwner{PID: results.DetachedPID}}, "running (detached)", "the last one finishes it"},
	} {
		status, note := State(&c.run, "here", alive)
		if status != c.status || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %q, %q; want %q, a note with %q", c.run, status, note, c.status, c.note)
		}
	}
}

// List counts each run's cells; MarkInterrupted marks a run of another
// host once and refuses one that is not running or alive here.
func TestListAndMarkInterrupted(t *testing.T) {
	ctx := t.Context()
	s, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i, st := range []results.Status{results.StatusOK, results.StatusCrashed} {
		if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "a", Repetition: i + 1, Seq: i + 1, Status: st,
			Metrics: []agentproto.Metric{{Name: "m", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.GetRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	here := got.Owner.Hostname
	rows, err := List(ctx, s, results.Filter{}, here, func(int) bool { return true })
	if err != nil || len(rows) != 1 || rows[0].OK != 1 || rows[0].Cells != 2 || rows[0].Status != "running" {
		t.Fatalf("List: %+v, %v", rows, err)
	}
	if err := MarkInterrupted(ctx, s, r.ID, here, func(int) bool { return true }, time.Now()); !usage.Is(err) || !strings.Contains(err.Error(), "running on this host") {
		t.Fatalf("marking a run alive here: %v", err)
	}
	if err := MarkInterrupted(ctx, s, r.ID, "elsewhere", func(int) bool { return false }, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetRun(ctx, r.ID); got.Status != results.RunInterrupted || !strings.Contains(got.Error, "marked interrupted by hand on elsewhere") {
		t.Fatalf("after marking: %s, %q", got.Status, got.Error)
	}
	if err := MarkInterrupted(ctx, s, r.ID, "elsewhere", func(int) bool { return false }, time.Now()); !usage.Is(err) || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("marking twice: %v", err)
	}
}

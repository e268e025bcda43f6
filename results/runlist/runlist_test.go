package runlist

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
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
		status, note := State(&c.run, Vantage{Host: "here", Alive: alive})
		if status != c.status || !strings.Contains(note, c.note) {
			t.Errorf("%+v: %q, %q; want %q, a note with %q", c.run, status, note, c.status, c.note)
		}
	}
}

// List counts each run's cells; MarkInterrupted marks a run of another
// host once and refuses one that is not running or alive here.
func TestListAndMarkInterrupted(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunRunning, []string{"a"}, storetest.Cell{Variant: "a", Status: results.StatusOK}, storetest.Cell{Variant: "a", Status: results.StatusCrashed})
	got, err := s.GetRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	here := got.Owner.Hostname
	rows, err := List(ctx, s, results.Filter{}, Vantage{Host: here, Alive: func(int) bool { return true }})
	if err != nil || len(rows) != 1 || rows[0].OK != 1 || rows[0].Cells != 2 || rows[0].Status != "running" {
		t.Fatalf("List: %+v, %v", rows, err)
	}
	var said strings.Builder
	if err := MarkInterrupted(ctx, s, r.ID, Vantage{Host: here, Alive: func(int) bool { return true }}, time.Now(), &said); !usage.Is(err) || !strings.Contains(err.Error(), "running on this host") || said.Len() != 0 {
		t.Fatalf("marking a run alive here: %v, said %q", err, said.String())
	}
	elsewhere := Vantage{Host: "elsewhere", Alive: func(int) bool { return false }}
	if err := MarkInterrupted(ctx, s, r.ID, elsewhere, time.Now(), &said); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("run %d marked interrupted; kregress run --resume %d (with the -c and flags it was started with) finishes it\n", r.ID, r.ID); said.String() != want {
		t.Fatalf("marking said %q, want %q", said.String(), want)
	}
	if got, _ := s.GetRun(ctx, r.ID); got.Status != results.RunInterrupted || !strings.Contains(got.Error, "marked interrupted by hand on elsewhere") {
		t.Fatalf("after marking: %s, %q", got.Status, got.Error)
	}
	if err := MarkInterrupted(ctx, s, r.ID, elsewhere, time.Now(), io.Discard); !usage.Is(err) || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("marking twice: %v", err)
	}
}

// Get reads a run with its cells; a run that is not there is an error.
func TestGet(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunComplete, []string{"a"}, storetest.Cell{Variant: "a", Status: results.StatusOK}, storetest.Cell{Variant: "a", Status: results.StatusCrashed})
	run, rs, err := Get(ctx, s, r.ID)
	if err != nil || run.ID != r.ID || len(rs) != 2 || rs[1].Status != results.StatusCrashed {
		t.Fatalf("Get: %+v, %d results, %v", run, len(rs), err)
	}
	if _, _, err := Get(ctx, s, r.ID+1); err == nil {
		t.Error("Get of a run that is not there: no error")
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range []string{"", "running", "complete", "interrupted", "failed"} {
		if got, err := ParseStatus(s); err != nil || string(got) != s {
			t.Errorf("%q: %q, %v", s, got, err)
		}
	}
	if _, err := ParseStatus("done"); !usage.Is(err) {
		t.Errorf("done: %v, want a usage error", err)
	}
}

// Here is this host as the store records a run's owner: a run just
// stored here, whose owner is this process, is alive from Here.
func TestHere(t *testing.T) {
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunRunning, []string{"a"})
	got, err := s.GetRun(t.Context(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if host, _ := os.Hostname(); Here().Host != host {
		t.Errorf("Here().Host = %q, want %q", Here().Host, host)
	}
	if l := Here().Liveness(got.Owner); l != results.LiveHere {
		t.Errorf("a run of this process from Here: %v, want LiveHere", l)
	}
	if l := (Vantage{Host: "elsewhere", Alive: func(int) bool { return true }}).Liveness(got.Owner); l != results.OtherHost {
		t.Errorf("from another host: %v, want OtherHost", l)
	}
}

// View says the run's state from its vantage and the attempts its
// store keeps but does not count.
func TestView(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunRunning, []string{"a"}, storetest.Cell{Variant: "a", Status: results.StatusOK})
	// The cell measured again (a retried task): kept as history only.
	if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "a", Repetition: 1, Seq: 1, Status: results.StatusOK}); err != nil {
		t.Fatal(err)
	}
	run, rs, err := Get(ctx, s, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	v := Vantage{Host: run.Owner.Hostname, Alive: func(int) bool { return false }}.View(ctx, s, run, rs)
	if v.Run != run || len(v.Results) != 1 || v.Status != "running (process gone)" || !strings.Contains(v.Note, "the next writing command marks it interrupted") || len(v.History) != 1 || v.History[0].Seq != 1 {
		t.Fatalf("View: %+v", v)
	}
}

package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// A store that does not exist is refused by name, never created, by the
// openers for reading; OpenMarkingStale creates it.
func TestOpenExisting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	if _, err := OpenExistingReadOnly(path); !usage.Is(err) || !strings.Contains(err.Error(), "no results store at "+path) {
		t.Fatalf("a missing store: %v", err)
	}
	if _, err := MustExist(path); !usage.Is(err) {
		t.Fatalf("MustExist of a missing store: %v", err)
	}
	if _, err := OpenExisting(t.Context(), path, nil); !usage.Is(err) {
		t.Fatalf("OpenExisting of a missing store: %v", err)
	}
	var said bytes.Buffer
	s, err := OpenMarkingStale(t.Context(), path, &said)
	if err != nil || said.Len() != 0 {
		t.Fatalf("OpenMarkingStale: %v, said %q", err, said.String())
	}
	// A run whose process on this host is gone is marked, and said so.
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning}
	if err := s.CreateRun(t.Context(), run); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(t.Context(), `UPDATE runs SET pid = ? WHERE id = ?`, 1<<30, run.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = OpenExisting(t.Context(), path, &said)
	if err != nil || said.String() != "kregress: marked 1 run(s) interrupted whose kregress process is gone\n" {
		t.Fatalf("OpenExisting over a dead run: %v, said %q", err, said.String())
	}
	if got, err := s.GetRun(t.Context(), run.ID); err != nil || got.Status != results.RunInterrupted {
		t.Fatalf("the dead run: %+v, %v", got, err)
	}
	s.Close()
	ro, err := OpenExistingReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
}

// OpenFor opens as its Access says: a missing store is refused for
// reading and changing (a nil interface, not a nil *Store), created for
// recording; a read-only store refuses a write.
func TestOpenFor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	for _, a := range []Access{ReadOnly, Changing} {
		if s, err := OpenFor(t.Context(), path, a, nil); !usage.Is(err) || s != nil {
			t.Fatalf("access %d of a missing store: %v, %v", a, s, err)
		}
	}
	s, err := OpenFor(t.Context(), path, Recording, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, a := range []Access{ReadOnly, Changing} {
		s, err := OpenFor(t.Context(), path, a, nil)
		if err != nil {
			t.Fatalf("access %d of an existing store: %v", a, err)
		}
		run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning}
		if err := s.CreateRun(t.Context(), run); (err == nil) != (a == Changing) {
			t.Errorf("access %d: writing a run: %v", a, err)
		}
		s.Close()
	}
}

// With hands fn the store opened for its access and returns fn's error;
// a store it cannot open never reaches fn.
func TestWith(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	called := false
	if err := With(t.Context(), path, ReadOnly, nil, func(results.Store) error { called = true; return nil }); !usage.Is(err) || called {
		t.Fatalf("With on a missing store: %v (fn called: %v)", err, called)
	}
	stop := errors.New("stop")
	err := With(t.Context(), path, Recording, nil, func(s results.Store) error {
		run := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a"}, StartedAt: time.Now(), Status: results.RunRunning}
		if err := s.CreateRun(t.Context(), run); err != nil {
			t.Fatal(err)
		}
		return stop
	})
	if err != stop {
		t.Errorf("With returned %v, not fn's error", err)
	}
	err = With(t.Context(), path, ReadOnly, nil, func(s results.Store) error {
		runs, err := s.ListRuns(t.Context(), 0)
		if err == nil && len(runs) != 1 {
			t.Errorf("the run recorded: %d runs", len(runs))
		}
		return err
	})
	if err != nil {
		t.Error(err)
	}
}

package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// MustExist normalizes spec and refuses a SQLite store file that does
// not exist, naming it (a usage error): a command that reads or changes
// runs never creates an empty store from a typo.
func MustExist(spec string) (string, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return "", usage.Wrap(err)
	}
	if !IsPostgres(spec) {
		if _, err := os.Stat(spec); errors.Is(err, os.ErrNotExist) {
			return "", usage.Wrap(fmt.Errorf("no results store at %s: nothing has been run into it (check --store, KREGRESS_STORE or results_dir; kregress run creates it)", Redact(spec)))
		}
	}
	return spec, nil
}

// OpenExistingReadOnly opens an existing store for the commands that
// only read it (results list, show, export, diff, baseline list, bisect
// show): nothing is migrated, no stale run is marked and no file is
// written, so they work on a read-only mount or someone else's store and
// leave it exactly as it was.
func OpenExistingReadOnly(spec string) (*Store, error) {
	spec, err := MustExist(spec)
	if err != nil {
		return nil, err
	}
	return OpenReadOnly(spec)
}

// OpenMarkingStale opens the store for writing (creating it if needed)
// and marks the runs whose kregress died (kill -9) as interrupted, so
// they never look like they are still going, saying on say (when not
// nil) how many it marked. A spec that cannot be a store is a usage
// error.
func OpenMarkingStale(ctx context.Context, spec string, say io.Writer) (*Store, error) {
	spec, err := Normalize(spec)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	s, err := Open(spec)
	if err != nil {
		return nil, err
	}
	// Marking is bookkeeping: the store is usable without it.
	if n, err := s.MarkStale(ctx); err == nil && n > 0 && say != nil {
		fmt.Fprintf(say, "kregress: marked %d run(s) interrupted whose kregress process is gone\n", n)
	}
	return s, nil
}

// OpenExisting is OpenMarkingStale for the commands that change what is
// there (prune, baseline accept): a SQLite file that does not exist is
// an error naming it (MustExist), not a new empty store.
func OpenExisting(ctx context.Context, spec string, say io.Writer) (*Store, error) {
	spec, err := MustExist(spec)
	if err != nil {
		return nil, err
	}
	return OpenMarkingStale(ctx, spec, say)
}

// WriteSchemaVersion says, after results migrate opened s for writing
// (which migrates it), where s is and the schema version it now has.
func WriteSchemaVersion(w io.Writer, s results.Store) error {
	_, err := fmt.Fprintf(w, "%s: schema version %d\n", s.Where(), SchemaVersion)
	return err
}

// Access is what a command does with the store, and so how it opens it
// (OpenFor).
type Access int

const (
	// ReadOnly is for the commands that only read (list, show, export,
	// diff): OpenExistingReadOnly.
	ReadOnly Access = iota
	// Changing is for the commands that change stored runs (prune,
	// baseline accept, migrate): OpenExisting.
	Changing
	// Recording is for the commands that record runs, creating the store
	// if needed (run, nightly, bisect, import): OpenMarkingStale.
	Recording
)

// OpenFor opens the store spec names for access a, saying on say what
// OpenMarkingStale marked. A failed open is a nil results.Store, never a
// nil *Store inside a non-nil interface.
func OpenFor(ctx context.Context, spec string, a Access, say io.Writer) (results.Store, error) {
	var s *Store
	var err error
	switch a {
	case ReadOnly:
		s, err = OpenExistingReadOnly(spec)
	case Changing:
		s, err = OpenExisting(ctx, spec, say)
	default:
		s, err = OpenMarkingStale(ctx, spec, say)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// With opens the store spec names for access a (OpenFor, saying on say
// what it marked), runs fn with it and closes it: how a command that
// reads or writes the store for one step opens it.
func With(ctx context.Context, spec string, a Access, say io.Writer, fn func(results.Store) error) error {
	s, err := OpenFor(ctx, spec, a, say)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(s)
}

package export

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kregress/kregress/results"
)

// Import adds the run exported to path to store as a new run, its
// error noting where it came from, and returns it with its results. It
// is one transaction: a failure part way (a full disk) leaves no run
// behind claiming the file's status.
func Import(ctx context.Context, store results.Store, path string) (*results.Run, []*results.Result, error) {
	f, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return Checked{Path: path, File: f}.Import(ctx, store)
}

// Checked is an export file read and checked (ReadFiles), not yet stored.
type Checked struct {
	Path string
	File *File
}

// ReadFiles reads and checks the export files at paths, all of them, so
// that a command importing them opens (or creates) its store only once
// it knows every file can be imported.
func ReadFiles(paths []string) ([]Checked, error) {
	var read []Checked
	for _, p := range paths {
		f, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		read = append(read, Checked{Path: p, File: f})
	}
	return read, nil
}

// Import adds r to store as a new run, as Import does.
func (r Checked) Import(ctx context.Context, store results.Store) (*results.Run, []*results.Result, error) {
	path := r.Path
	run, rs := r.File.Runs()
	origin := run.ID
	run.Error = strings.TrimSpace(run.Error + fmt.Sprintf(" (imported from %s, run %d there)", filepath.Base(path), origin))
	if err := store.ImportRun(ctx, run, rs); err != nil {
		return nil, nil, fmt.Errorf("importing %s (nothing of it was stored): %w", path, err)
	}
	return run, rs, nil
}

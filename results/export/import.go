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
	run, rs := f.Runs()
	origin := run.ID
	run.Error = strings.TrimSpace(run.Error + fmt.Sprintf(" (imported from %s, run %d there)", filepath.Base(path), origin))
	if err := store.ImportRun(ctx, run, rs); err != nil {
		return nil, nil, fmt.Errorf("importing %s (nothing of it was stored): %w", path, err)
	}
	return run, rs, nil
}

package store

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

// TestVariantWithCommaRefused: variants are stored comma-joined, so a
// variant "x,y" came back from the store as two variants; it is refused
// (a usage error) and nothing is stored.
func TestVariantWithCommaRefused(t *testing.T) {
	s, err := OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, run := range []*results.Run{
		{Experiment: "e", Family: "f", Baseline: "base", Variants: []string{"base", "x,y"}, Status: results.RunRunning},
		{Experiment: "e", Family: "f", Baseline: "a,b", Variants: []string{"a,b", "c"}, Status: results.RunRunning},
	} {
		err := s.CreateRun(ctx, run)
		if err == nil {
			got, _ := s.GetRun(ctx, run.ID)
			t.Errorf("run with variants %q stored; read back as %q", run.Variants, got.Variants)
			continue
		}
		if !usage.Is(err) {
			t.Errorf("variants %q: %v, want a usage error", run.Variants, err)
		}
		if err := s.ImportRun(ctx, run, nil); !usage.Is(err) {
			t.Errorf("import of variants %q: %v, want a usage error", run.Variants, err)
		}
	}
	if runs, err := s.ListRuns(ctx, 10); err != nil || len(runs) != 0 {
		t.Errorf("runs stored: %d, %v", len(runs), err)
	}
}

// TestStoreThatIsNotAFile: a FIFO (which hung the open) or a device given
// as the store is refused at once, naming it, a usage error.
func TestStoreThatIsNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "k.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/null"} {
		for name, open := range map[string]func(string) (*Store, error){"OpenSQLite": OpenSQLite, "OpenSQLiteReadOnly": OpenSQLiteReadOnly} {
			_, err := open(path)
			if !usage.Is(err) || !strings.Contains(err.Error(), path+": not a regular file") {
				t.Errorf("%s(%s): %v", name, path, err)
			}
		}
	}
}

package nightly

import (
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

func TestNewPruneSelection(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	if sel, err := NewPruneSelection([]string{"3", "4"}, 0, 0, now); err != nil || len(sel.IDs) != 2 || sel.IDs[1] != 4 {
		t.Errorf("ids: %+v, %v", sel, err)
	}
	if sel, err := NewPruneSelection(nil, 0, time.Hour, now); err != nil || !sel.Before.Equal(now.Add(-time.Hour)) {
		t.Errorf("--older-than 1h: %+v, %v", sel, err)
	}
	for name, bad := range map[string]struct {
		args []string
		keep int
	}{"none": {nil, 0}, "two": {[]string{"x"}, 5}} {
		// "two" has a bad id too: the selectors are checked before any
		// id is read.
		if _, err := NewPruneSelection(bad.args, bad.keep, 0, now); !usage.Is(err) || !strings.Contains(err.Error(), "say what to prune") {
			t.Errorf("%s: %v, want the usage error saying what to prune", name, err)
		}
	}
	if _, err := NewPruneSelection([]string{"x"}, 0, 0, now); !usage.Is(err) || !strings.Contains(err.Error(), `"x" is not a run id`) {
		t.Errorf("a bad id: %v", err)
	}
}

func TestPruneActionLine(t *testing.T) {
	r := &results.Run{ID: 7, Experiment: "e", StartedAt: time.Date(2026, 12, 5, 1, 2, 3, 0, time.Local), Owner: results.RunOwner{Hostname: "vm", PID: 4242}}
	if got := PruneSkipped.Line(&results.Run{ID: 8, Owner: results.RunOwner{PID: results.DetachedPID}}); got != "skip run 8: still running (detached: its cells run on the scheduler)" {
		t.Errorf("detached: %q", got)
	}
	for a, want := range map[PruneAction]string{
		PruneSkipped:     "skip run 7: still running (kregress pid 4242 on vm)",
		PruneKept:        "keep run 7: the baseline a later nightly of e compares with (--force deletes it anyway)",
		PruneWouldDelete: "would delete run 7 (e, 2026-12-05 01:02:03)",
		PruneDeleted:     "deleted run 7 (e, 2026-12-05 01:02:03)",
	} {
		if got := a.Line(r); got != want {
			t.Errorf("%d: %q, want %q", a, got, want)
		}
	}
}

package nightly

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
)

func TestNewPruneSelection(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	parsed := 0
	parse := func(s string) (int64, error) {
		parsed++
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, errors.New("bad id " + s)
		}
		return id, nil
	}
	if sel, err := NewPruneSelection([]string{"3", "4"}, parse, 0, 0, now); err != nil || len(sel.IDs) != 2 || sel.IDs[1] != 4 {
		t.Errorf("ids: %+v, %v", sel, err)
	}
	if sel, err := NewPruneSelection(nil, parse, 0, time.Hour, now); err != nil || !sel.Before.Equal(now.Add(-time.Hour)) {
		t.Errorf("--older-than 1h: %+v, %v", sel, err)
	}
	parsed = 0
	for name, bad := range map[string]struct {
		args []string
		keep int
	}{"none": {nil, 0}, "two": {[]string{"x"}, 5}} {
		if _, err := NewPruneSelection(bad.args, parse, bad.keep, 0, now); !usage.Is(err) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	if parsed != 0 {
		t.Errorf("ids read before the selectors were checked (%d)", parsed)
	}
	if _, err := NewPruneSelection([]string{"x"}, parse, 0, 0, now); err == nil || err.Error() != "bad id x" {
		t.Errorf("a bad id: %v", err)
	}
}

func TestPruneActionLine(t *testing.T) {
	r := &results.Run{ID: 7, Experiment: "e", StartedAt: time.Date(2026, 12, 5, 1, 2, 3, 0, time.Local)}
	for a, want := range map[PruneAction]string{
		PruneSkipped:     "skip run 7: still running",
		PruneKept:        "keep run 7: the baseline a later nightly of e compares with (--force deletes it anyway)",
		PruneWouldDelete: "would delete run 7 (e, 2026-12-05 01:02:03)",
		PruneDeleted:     "deleted run 7 (e, 2026-12-05 01:02:03)",
	} {
		if got := a.Line(r); got != want {
			t.Errorf("%d: %q, want %q", a, got, want)
		}
	}
}

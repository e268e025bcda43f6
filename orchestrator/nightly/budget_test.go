package nightly

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// budgetNight is a second night of rstat-every-n (8 repetitions of 2
// variants a look, every metric not significant measured again: two
// looks) within budget, on a fake clock on which every boot takes 2
// minutes: the night and how many runs it measured.
func budgetNight(t *testing.T, budget config.Looks) (*nightreport.Result, int) {
	t.Helper()
	n, fr := newNight(t)
	ctx := context.Background()
	n.GreyUpper = 1
	clock := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	n.Now = func() time.Time { return clock }
	fr.edit = func(r *results.Result) {
		r.StartedAt = clock
		clock = clock.Add(2 * time.Minute)
		r.FinishedAt = clock
	}
	if first := n.Run(ctx, "rstat-every-n"); first.Outcome != verdict.FirstNight {
		t.Fatalf("night 1: %s %s", first.Outcome, first.Error)
	}
	editLoaded(n, func(cfg *config.Config) { cfg.Looks = budget })
	calls := fr.calls
	r := n.Run(ctx, "rstat-every-n")
	return r, fr.calls - calls
}

// The night's further run is not started when its boots, or its minutes
// estimated from tonight's boots, would pass the budget; the notes and
// the JSON say why the looks stopped.
func TestNightBudgetStopsTheLook(t *testing.T) {
	// One look: 16 boots, 32 minutes; another is as much again.
	for _, c := range []struct {
		name   string
		budget config.Looks
		runs   int
		stop   string
		says   string
	}{
		{"boots", config.Looks{MaxBoots: 31}, 1, "budget", "budget: another round (~16 boots, ~32 min) would exceed --looks.max-boots 31 (16 spent): stopping at look 1 of 2"},
		{"minutes", config.Looks{MaxMinutes: 63}, 1, "budget", "budget: another round (~16 boots, ~32 min) would exceed --looks.max-minutes 63 (32 min spent): stopping at look 1 of 2"},
		{"fits", config.Looks{MaxMinutes: 64, MaxBoots: 32}, 2, "max looks", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, runs := budgetNight(t, c.budget)
			if runs != c.runs || len(r.RunIDs) != c.runs {
				t.Fatalf("measured %d run(s) %v, want %d: %s %s %q", runs, r.RunIDs, c.runs, r.Outcome, r.Error, r.Notes)
			}
			if r.Looks == nil || r.Looks.Taken != c.runs || r.Looks.Planned != 2 || r.Looks.Stopped != c.stop || r.Looks.Budget != c.says {
				t.Fatalf("looks %+v, want %d of 2 stopped by %q, budget %q", r.Looks, c.runs, c.stop, c.says)
			}
			notes := strings.Join(r.Notes, "\n")
			if c.says != "" && !strings.Contains(notes, c.says) {
				t.Errorf("notes lack %q:\n%s", c.says, notes)
			}
			if !strings.Contains(notes, "each judged at alpha 0.025 (split over the 2 planned)") {
				t.Errorf("notes do not say every look was judged at the planned split:\n%s", notes)
			}
			b, err := json.Marshal(r)
			if err != nil || !strings.Contains(string(b), `"looks":{"taken":`) || !strings.Contains(string(b), `"stopped":"`+c.stop+`"`) {
				t.Errorf("JSON %s: %v, want its looks", b, err)
			}
		})
	}
}

// Without a budget the night records nothing of one.
func TestNightWithoutBudget(t *testing.T) {
	r, runs := budgetNight(t, config.Looks{})
	b, _ := json.Marshal(r)
	if runs != 2 || r.Looks != nil || strings.Contains(string(b), `"looks"`) || strings.Contains(strings.Join(r.Notes, "\n"), "budget") {
		t.Fatalf("%d run(s), looks %+v, notes %q", runs, r.Looks, r.Notes)
	}
}

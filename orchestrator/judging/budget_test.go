package judging

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
)

// fakeClock is a clock that moves only when told to.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// cellsOf are n boots of d wall time each, one after the other from t0.
func cellsOf(t0 time.Time, n int, d time.Duration) []*results.Result {
	var rs []*results.Result
	for i := range n {
		start := t0.Add(time.Duration(i) * d)
		rs = append(rs, &results.Result{Status: results.StatusOK, StartedAt: start, FinishedAt: start.Add(d)})
	}
	return rs
}

func TestSpentOn(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	rs := cellsOf(t0, 4, 2*time.Minute)
	// History is no boot of the measurement; a cell without an end is
	// no measure of a boot's time.
	rs = append(rs, &results.Result{Superseded: true, StartedAt: t0, FinishedAt: t0.Add(time.Hour)}, &results.Result{StartedAt: t0})
	s := SpentOn(rs, 30*time.Minute)
	if s.Boots != 5 || s.PerBoot != 2*time.Minute || s.Elapsed != 30*time.Minute {
		t.Fatalf("spent %+v: want 5 boots of 2m each, 30m elapsed", s)
	}
	// Untimed cells: the elapsed time over the boots, builds and all.
	s = SpentOn([]*results.Result{{}, {}, {}}, 30*time.Minute)
	if s.Boots != 3 || s.PerBoot != 10*time.Minute {
		t.Fatalf("untimed: %+v, want 3 boots of 10m", s)
	}
}

func TestBudgetRefuses(t *testing.T) {
	// 10 boots of 2 minutes so far, 25 minutes since the run began
	// (builds included): another round of 10 boots is ~20 minutes.
	spent := Spent{Elapsed: 25 * time.Minute, Boots: 10, PerBoot: 2 * time.Minute}
	for _, c := range []struct {
		name string
		b    Budget
		want string // "" : the round may start
	}{
		{"no budget", Budget{}, ""},
		{"minutes enough", Budget{MaxMinutes: 45}, ""},
		{"minutes short", Budget{MaxMinutes: 44}, "--looks.max-minutes 44 (25 min spent)"},
		{"boots enough", Budget{MaxBoots: 20}, ""},
		{"boots short", Budget{MaxBoots: 19}, "--looks.max-boots 19 (10 spent)"},
		{"both short", Budget{MaxMinutes: 30, MaxBoots: 15}, "--looks.max-boots 15 (10 spent) and --looks.max-minutes 30 (25 min spent)"},
		// Two guests at once: the round is 5 waves, ~10 minutes.
		{"parallel guests", Budget{MaxMinutes: 35, Parallel: 2}, ""},
		{"parallel guests, short", Budget{MaxMinutes: 34, Parallel: 2}, "--looks.max-minutes 34"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.b.Refuses(spent, 10)
			switch {
			case c.want == "" && o != nil:
				t.Fatalf("refused %+v, want the round started", o)
			case c.want != "" && o == nil:
				t.Fatalf("started, want refused for %s", c.want)
			case o != nil && !strings.Contains(strings.Join(o.Exceeds, " and "), c.want):
				t.Fatalf("refused for %q, want %q", o.Exceeds, c.want)
			case o != nil && o.Boots != 10:
				t.Fatalf("round of %d boots, want 10", o.Boots)
			}
		})
	}
	if o := (Budget{MaxMinutes: 1}).Refuses(spent, 10); o == nil || o.Time != 20*time.Minute || Minutes(o.Time) != "20 min" {
		t.Fatalf("estimate %+v, want 20 min", o)
	}
	if got := Minutes(20 * time.Second); got != "1 min" {
		t.Errorf("Minutes(20s) = %q, want a cost never understated: 1 min", got)
	}
}

// A run within a budget on a fake clock: each round of 10 boots takes 2
// minutes a boot. The round whose estimate passes the budget is not
// measured, and the looks say why they stopped.
func TestTakeLooksWithinBudget(t *testing.T) {
	const boot, round = 2 * time.Minute, 10
	for _, c := range []struct {
		name   string
		budget Budget
		unsure int // looks that leave a metric unsure
		looks  int
		stop   Stop
		says   string
	}{
		// 5 minutes of builds, then 20 per round: before look 2's round
		// 25 minutes are spent, before look 3's 45.
		{"minutes stop at look 1", Budget{MaxMinutes: 44}, 9, 1, StopBudget, "--looks.max-minutes 44 (25 min spent)"},
		{"minutes stop at look 2", Budget{MaxMinutes: 64}, 9, 2, StopBudget, "--looks.max-minutes 64 (45 min spent)"},
		{"minutes enough", Budget{MaxMinutes: 65}, 9, 3, StopMaxLooks, ""},
		{"boots stop at look 1", Budget{MaxBoots: 19}, 9, 1, StopBudget, "--looks.max-boots 19 (10 spent)"},
		{"boots stop at look 2", Budget{MaxBoots: 29}, 9, 2, StopBudget, "--looks.max-boots 29 (20 spent)"},
		{"decided before the budget matters", Budget{MaxBoots: 19}, 0, 1, StopDecided, ""},
		{"no budget", Budget{}, 9, 3, StopMaxLooks, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)}
			began := clock.now()
			clock.advance(5 * time.Minute) // the builds
			var cells []*results.Result
			measure := func() {
				cells = append(cells, cellsOf(clock.now(), round, boot)...)
				clock.advance(round * boot)
			}
			measure()
			l := Looks{Alpha: 0.05, Extra: 2, GreyUpper: 0.2}
			each := l.Each()
			judged := 0
			afford := c.budget.Afford(clock.now, began, round, func() ([]*results.Result, error) { return cells, nil })
			_, taken, err := TakeLooksWithin(l, afford,
				func() (night, error) {
					judged++
					if judged <= c.unsure {
						return night{[]string{"v/m"}}, nil
					}
					return night{}, nil
				},
				func(int, []string) error { measure(); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if taken.Looks != c.looks || taken.Stop != c.stop || len(cells) != c.looks*round {
				t.Fatalf("took %d look(s) (%d boots), stopped: %q; want %d, %q", taken.Looks, len(cells), taken.Stop, c.looks, c.stop)
			}
			if (taken.Over != nil) != (c.stop == StopBudget) {
				t.Fatalf("the refused round %+v with stop %q", taken.Over, taken.Stop)
			}
			if taken.Over != nil && !strings.Contains(strings.Join(taken.Over.Exceeds, " and "), c.says) {
				t.Fatalf("refused for %q, want %q", taken.Over.Exceeds, c.says)
			}
			// The looks are judged at alpha split over the planned
			// looks, whatever the budget cut.
			if l.Each() != each || each != 0.05/3 {
				t.Fatalf("alpha each %g, want 0.05/3", l.Each())
			}
		})
	}
}

// A budget is asked only when a round would start: never after the last
// planned look nor once nothing is unsure, and its error stops the looks.
func TestNextAsksTheBudgetLast(t *testing.T) {
	l := Looks{Alpha: 0.05, Extra: 1, GreyUpper: 0.2}
	asked := 0
	refuse := func(int) (*Over, error) { asked++; return &Over{Boots: 1, Exceeds: []string{"x"}}, nil }
	if stop, _, _ := l.Next(1, nil, refuse); stop != StopDecided {
		t.Errorf("nothing unsure: %q", stop)
	}
	if stop, _, _ := l.Next(2, []string{"m"}, refuse); stop != StopMaxLooks {
		t.Errorf("last look: %q", stop)
	}
	if asked != 0 {
		t.Fatalf("budget asked %d time(s) when no round would start", asked)
	}
	if stop, o, _ := l.Next(1, []string{"m"}, refuse); stop != StopBudget || o == nil {
		t.Errorf("refused round: %q %+v", stop, o)
	}
	if stop, _, _ := l.Next(1, []string{"m"}, nil); stop != "" {
		t.Errorf("no budget: %q, want another round", stop)
	}
	boom := errors.New("store gone")
	if _, _, err := l.Next(1, []string{"m"}, func(int) (*Over, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("a budget that cannot read the boots: %v", err)
	}
	if (Budget{}).Afford(time.Now, time.Now(), 10, nil) != nil {
		t.Error("no bound set, yet a budget to ask")
	}
}

package judging

import (
	"fmt"
	"math"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
)

// Budget bounds what one measurement's further looks may cost (config
// looks.max_minutes, looks.max_boots; 0 bounds nothing): before another
// round, Refuses estimates the round from the boots measured so far and
// refuses it when it would take the measurement past a bound. It never
// changes what a look is judged at: alpha stays split over the planned
// looks (Looks.Each), so a measurement the budget stops early was judged
// more cautiously than its looks needed, never less. When it stops
// depends on boots and wall time, never on the figures measured.
type Budget struct {
	MaxMinutes int
	MaxBoots   int
	// Parallel is how many boots run at once (executor.parallel): a
	// round's boots take that many times less wall time.
	Parallel int
}

// BudgetOf is experiment cfg's budget.
func BudgetOf(cfg *config.Config) Budget {
	return Budget{MaxMinutes: cfg.Looks.MaxMinutes, MaxBoots: cfg.Looks.MaxBoots, Parallel: cfg.Executor.Parallel}
}

// Bounded reports whether b bounds anything: without a bound a
// measurement looks, and says what it did, as it did before budgets.
func (b Budget) Bounded() bool { return b.MaxMinutes > 0 || b.MaxBoots > 0 }

// Spent is what a measurement has cost when it weighs another round.
type Spent struct {
	// Elapsed is the wall time since the measurement began.
	Elapsed time.Duration
	// Boots are the boots measured so far, every variant's.
	Boots int
	// PerBoot is the mean wall time of one of them (0: unknown).
	PerBoot time.Duration
}

// SpentOn is what cells, the measurement's boots so far (a superseded
// result is history, not a boot of the measurement), cost elapsed after
// it began: their number and their mean wall time, from each cell's own
// start and end. When no cell has both, the elapsed time over the boots
// stands for it: that counts the builds in too, so it errs long, and a
// budget errs towards stopping.
func SpentOn(cells []*results.Result, elapsed time.Duration) Spent {
	s := Spent{Elapsed: elapsed}
	var timed time.Duration
	n := 0
	for _, c := range cells {
		if c.Superseded {
			continue
		}
		s.Boots++
		if !c.StartedAt.IsZero() && c.FinishedAt.After(c.StartedAt) {
			timed += c.FinishedAt.Sub(c.StartedAt)
			n++
		}
	}
	switch {
	case n > 0:
		s.PerBoot = timed / time.Duration(n)
	case s.Boots > 0:
		s.PerBoot = elapsed / time.Duration(s.Boots)
	}
	return s
}

// Over is a round the budget refuses: its estimated cost and what it
// would pass.
type Over struct {
	Boots int
	Time  time.Duration
	// Exceeds names each bound the round would pass as the flag that
	// sets it, with what was spent ("--looks.max-minutes 30 (21 min
	// spent)").
	Exceeds []string
}

// Refuses is the round of boots boots that b does not let start after
// spent, nil when it may. Its time is PerBoot for each wave of Parallel
// boots.
func (b Budget) Refuses(spent Spent, boots int) *Over {
	par := max(b.Parallel, 1)
	o := &Over{Boots: boots, Time: time.Duration((boots+par-1)/par) * spent.PerBoot}
	if b.MaxBoots > 0 && spent.Boots+boots > b.MaxBoots {
		o.Exceeds = append(o.Exceeds, fmt.Sprintf("--%s %d (%d spent)", config.FlagFor("looks.max_boots"), b.MaxBoots, spent.Boots))
	}
	if b.MaxMinutes > 0 && spent.Elapsed+o.Time > time.Duration(b.MaxMinutes)*time.Minute {
		o.Exceeds = append(o.Exceeds, fmt.Sprintf("--%s %d (%s spent)", config.FlagFor("looks.max_minutes"), b.MaxMinutes, Minutes(spent.Elapsed)))
	}
	if len(o.Exceeds) == 0 {
		return nil
	}
	return o
}

// Minutes is d as the budget's messages give it: whole minutes, rounded
// up, so a cost is never understated ("1 min" for 20 seconds).
func Minutes(d time.Duration) string {
	return fmt.Sprintf("%d min", int(math.Ceil(d.Minutes())))
}

// Afford is the check a measurement makes before another round under
// b: cells reads its boots so far, now the clock (time.Now in use, a
// fake in tests), began when the measurement began, and a round is
// roundBoots boots. nil when b bounds nothing.
func (b Budget) Afford(now func() time.Time, began time.Time, roundBoots int, cells func() ([]*results.Result, error)) func(look int) (*Over, error) {
	if !b.Bounded() {
		return nil
	}
	return func(int) (*Over, error) {
		rs, err := cells()
		if err != nil {
			return nil, err
		}
		return b.Refuses(SpentOn(rs, now().Sub(began)), roundBoots), nil
	}
}

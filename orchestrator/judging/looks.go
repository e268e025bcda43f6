package judging

import (
	"fmt"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/compare"
)

// MaxExtraRounds bounds the extra looks: every round measures the
// experiment's repetitions again, and alpha is split over the looks, so
// past a few rounds each look can judge less, not more.
const MaxExtraRounds = 10

// Looks is how a measurement spends its false-discovery rate when it may
// measure again, as Pinpoint adds attempts while a comparison is unknown:
// after each look, while a metric is unsure (compare.Metric.Unsure: not
// significant with q in the grey zone [alpha/looks, GreyUpper), or
// unjudged and deciding the verdict or seen to change), one more round of
// the experiment's repetitions, pooled with what came before, up to Extra
// rounds. Every look is judged at Alpha / looks (Bonferroni over the
// looks), so however the looks turn out a comparison in which nothing
// changed is flagged at most Alpha of the time; kregress-calibrate checks
// it through the nightly's and run's loops.
type Looks struct {
	Alpha     float64
	Extra     int
	GreyUpper float64
}

// N is how many times a measurement may look: once, plus the extra
// rounds.
func (l Looks) N() int { return 1 + max(l.Extra, 0) }

// Each is the alpha every look is judged at.
func (l Looks) Each() float64 { return l.Alpha / float64(l.N()) }

// Miss is the rule-out bound's error every look is judged at
// (compare.Options.Miss): compare.DefaultMiss split over the looks, as
// alpha is, since a true regression may be wrongly ruled out at any one.
func (l Looks) Miss() float64 { return compare.DefaultMiss / float64(l.N()) }

// Check refuses settings no measurement can honour: alpha outside (0, 1),
// extra rounds outside 0..MaxExtraRounds, and, when there are extra
// rounds, a grey zone that does not lie above alpha.
func (l Looks) Check() error {
	if err := compare.CheckAlpha("--alpha", l.Alpha); err != nil {
		return err
	}
	if l.Extra < 0 || l.Extra > MaxExtraRounds {
		return fmt.Errorf("--extra-rounds %d: want 0..%d (0: never measure again; each is a full round of the experiment's repetitions)", l.Extra, MaxExtraRounds)
	}
	// q is at most 1, so a grey-upper above 1 means what 1 means: a
	// value there is a typo (1.5 for 0.15) more often than a choice.
	if l.Extra > 0 && (!(l.GreyUpper > l.Alpha) || !(l.GreyUpper <= 1)) {
		return fmt.Errorf("--grey-upper %g must lie in (--alpha %g, 1] (metrics with alpha/looks <= q < grey-upper are measured again; 1: every metric that is not significant)", l.GreyUpper, l.Alpha)
	}
	return nil
}

// Options are experiment cfg's comparison options at every look: at
// Each, with the looks' grey zone (Options, which see).
func (l Looks) Options(cfg *config.Config, dflt DefaultPrimary) compare.Options {
	o := Options(cfg, l.Each(), dflt)
	o.GreyUpper = l.GreyUpper
	o.Miss = l.Miss()
	return o
}

// Take takes the looks: judge compares every boot measured so far (with
// Options: at Each, in the looks' grey zone); while it leaves a metric unsure (compare.Diff.Unsure) and looks
// remain, more measures one more round (look is the look just judged,
// unsure what it left unsure) and judge compares again. It returns the
// last comparison and how many looks it took. run and the calibration
// take their looks through it.
func (l Looks) Take(judge func() (*compare.Diff, error), more func(look int, unsure []string) error) (*compare.Diff, int, error) {
	return TakeLooks(l, judge, more)
}

// TakeWithin is Take within a budget: afford (Budget.Afford; nil: none)
// is asked before each further round and may refuse it. It returns how
// the looks went.
func (l Looks) TakeWithin(afford func(look int) (*Over, error), judge func() (*compare.Diff, error), more func(look int, unsure []string) error) (*compare.Diff, Taken, error) {
	return TakeLooksWithin(l, afford, judge, more)
}

// Judged is what a look's judgement leaves unsure: the metrics more boots
// may decide (a comparison's, or a night's grey zone over its variants).
type Judged interface{ Unsure() []string }

// Stop is why a measurement looked no more.
type Stop string

const (
	// StopDecided: its last look left nothing unsure.
	StopDecided Stop = "decided"
	// StopMaxLooks: it took every look planned (Looks.N).
	StopMaxLooks Stop = "max looks"
	// StopBudget: another round would have taken it past its budget.
	StopBudget Stop = "budget"
)

// Say is s in a sentence's words.
func (s Stop) Say() string {
	switch s {
	case StopDecided:
		return "nothing left unsure"
	case StopMaxLooks:
		return "every planned look taken"
	case StopBudget:
		return "stopped by the budget (looks.max_minutes, looks.max_boots)"
	}
	return string(s)
}

// Taken is how a measurement's looks went: how many, why no more, and
// with StopBudget the round the budget refused.
type Taken struct {
	Looks int
	Stop  Stop
	Over  *Over
}

// Next says whether a measurement that has judged look, leaving unsure
// unsure, measures another round ("") or why it stops. afford (nil: no
// budget) is asked only when a round would otherwise start. The looks'
// alpha is not Next's to change: every look is judged at Each whether
// or not the budget cuts the looks short.
func (l Looks) Next(look int, unsure []string, afford func(look int) (*Over, error)) (Stop, *Over, error) {
	switch {
	case len(unsure) == 0:
		return StopDecided, nil, nil
	case look >= l.N():
		return StopMaxLooks, nil, nil
	case afford == nil:
		return "", nil, nil
	}
	o, err := afford(look)
	if err != nil || o == nil {
		return "", nil, err
	}
	return StopBudget, o, nil
}

// TakeLooks is Take for any judgement that says what it left unsure, so
// that a night judged over several variants at once takes its looks by
// the same rule as a run.
func TakeLooks[J Judged](l Looks, judge func() (J, error), more func(look int, unsure []string) error) (J, int, error) {
	j, t, err := TakeLooksWithin(l, nil, judge, more)
	return j, t.Looks, err
}

// TakeLooksWithin is TakeLooks within a budget (TakeWithin).
func TakeLooksWithin[J Judged](l Looks, afford func(look int) (*Over, error), judge func() (J, error), more func(look int, unsure []string) error) (J, Taken, error) {
	for look := 1; ; look++ {
		j, err := judge()
		if err != nil {
			var none J
			return none, Taken{Looks: look}, err
		}
		unsure := j.Unsure()
		stop, over, err := l.Next(look, unsure, afford)
		if err != nil || stop != "" {
			return j, Taken{Looks: look, Stop: stop, Over: over}, err
		}
		if err := more(look, unsure); err != nil {
			return j, Taken{Looks: look}, err
		}
	}
}

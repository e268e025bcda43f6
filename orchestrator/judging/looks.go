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

// Judged is what a look's judgement leaves unsure: the metrics more boots
// may decide (a comparison's, or a night's grey zone over its variants).
type Judged interface{ Unsure() []string }

// TakeLooks is Take for any judgement that says what it left unsure, so
// that a night judged over several variants at once takes its looks by
// the same rule as a run.
func TakeLooks[J Judged](l Looks, judge func() (J, error), more func(look int, unsure []string) error) (J, int, error) {
	for look := 1; ; look++ {
		j, err := judge()
		if err != nil {
			var none J
			return none, look, err
		}
		unsure := j.Unsure()
		if len(unsure) == 0 || look >= l.N() {
			return j, look, nil
		}
		if err := more(look, unsure); err != nil {
			return j, look, err
		}
	}
}

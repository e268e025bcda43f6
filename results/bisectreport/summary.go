package bisectreport

import "github.com/kregress/kregress/results/verdict"

// Summary is a bisect's state as its text report (`kregress bisect`)
// and its line in `bisect list` print it: plain figures the bisect fills
// (orchestrator/bisect.Summarize) from its spec and search state, whose
// steps keep their looks behind unexported methods. The figures that
// need those looks (the endpoints' boots, a test's sentence) are
// computed there; results/format only lays them out.
type Summary struct {
	ID         int64
	Experiment string
	Variant    string
	Metric     string
	// Good and Bad are the endpoints as given; Points the number of
	// points searched, good and bad included; First and Last the names
	// of the first (good) and the last (bad) point.
	Good, Bad   string
	Points      int
	First, Last string
	Series      bool
	Crash       bool
	// FromNightly: a nightly handed this bisect its case, from its runs
	// NightRunIDs.
	FromNightly bool
	NightRunIDs []int64
	// Err is why the bisect stopped ("" when it did not); NotReproduced
	// that it stopped because good and bad do not differ.
	Err           string
	NotReproduced bool
	// Started: the endpoints were measured (the bisect has a state);
	// nothing below is set when it was not.
	Started    bool
	Reproduced bool
	Endpoints  Endpoints
	// Culprit: the first bad point ("" none).
	Culprit    Point
	Candidates []Point
	Confidence float64
	// ConfidenceWhy: how Confidence was computed ("" the default: the
	// sum of the measured steps' false-call rates).
	ConfidenceWhy string
	Measured      int
	// Confirmation: the revert's result (nil: not checked) and the
	// revert's figures (nil: not measured).
	Confirmation *Confirmation
	RevertFigs   *Figures
	// Speculation: what the speculative builds did, in words ("": none
	// ran).
	Speculation string
	// Merge: the first-parent search named a merge and the bisect
	// descended into its merged branch, in words ("": it did not).
	// MoreChanges: the data show more than one change in the range, and
	// what is still to bisect, in words ("": they do not).
	Merge, MoreChanges string
	// Metrics: the other metrics judged at the culprit, a line each.
	Metrics []string
	Steps   []SummaryStep
}

// Point is one searched commit or patch with its title (subject and
// author).
type Point struct {
	Name  string
	Title string
}

// Endpoints are good's and bad's figures: their medians and rank test
// (metric mode) or failed boots (crash mode).
type Endpoints struct {
	GoodMedian, BadMedian float64
	P                     float64
	// GoodBoots and BadBoots: the endpoints' boots in all.
	GoodBoots, BadBoots     int
	GoodCrashes, BadCrashes int
	// CrashRate: a bad kernel's failure rate in words ("" unknown).
	CrashRate string
}

// Figures are a measured point's median, boots and runs.
type Figures struct {
	Median float64
	N      int
	RunIDs []int64
}

// SummaryStep is one tested point.
type SummaryStep struct {
	Point
	// Endpoint: the endpoints' own step (not listed as a step).
	Endpoint bool
	Verdict  verdict.Step
	Why      string
	Figures
	Crashes int
	// Test: the step's test in words.
	Test string
}

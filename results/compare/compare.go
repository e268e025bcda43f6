// Package compare turns stored results into a verdict: per metric the
// median with its confidence interval, the change against the baseline,
// and a Mann-Whitney U p-value, computed with golang.org/x/perf/benchmath
// (what benchstat uses), plus which code held irqs off the longest.
package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// Options tune the comparison.
type Options struct {
	Alpha      float64 // significance level, default 0.05
	Confidence float64 // for the median's interval, default 0.95
	// NoiseFloorPct: per metric, a change smaller than this (in %) is
	// never called a regression or improvement, however small p is.
	NoiseFloorPct map[string]float64
	// GreyUpper bounds the grey zone: a metric not significant whose q
	// lies in [alpha, GreyUpper) is unsure (Metric.Unsure), and is
	// measured again where boots can be added. Default DefaultGreyUpper.
	GreyUpper float64
	// RuleOut is the margin a pass must rule out: a metric not called
	// whose boots leave a change this many times worse possible (or its
	// noise floor, when larger) keeps the comparison from passing (see
	// ruleout.go). A ratio above 1; +Inf: off. Default DefaultRuleOut.
	RuleOut float64
	// Miss is how often a metric truly worse by RuleOut may be ruled out
	// all the same: the bound's one-sided error. Default DefaultMiss;
	// a measurement that looks several times splits it over its looks.
	Miss float64
	// Primary metrics are judged first and form their own
	// false-discovery family.
	Primary []string
	// Gating are the metrics whose margin (RuleOut) a pass must rule
	// out; empty: the primary metrics and every metric where higher is
	// better (throughput). Every other judged metric is watched: a change
	// seen or proven to be worse still keeps the comparison from passing
	// and is named, but a watched metric whose boots merely leave the
	// margin possible is reported (Metric.WatchedOpen), not gated. A
	// per-boot extreme (an irqs-off worst, a longest hold) spreads so
	// widely that bounding it to the margin costs far more boots than
	// the metrics a patch is about; gating on it made every comparison
	// on a TCG host UNJUDGED.
	Gating []string
	// LoadBound: when both sides keep the host's clock and one side's
	// host was more than this many times as contended as the other's
	// (LoadMismatch), no timing metric is called a regression (see
	// hostload.go). A ratio above 1; +Inf: off. Default
	// DefaultLoadBound.
	LoadBound float64
	// DefaultPrimary: when Primary is empty, the workload's own primary
	// metrics (each workload descriptor's Primary, guest/workload); those these results lack are
	// left out instead of refused, since no user named them.
	DefaultPrimary []string
	// GateOnly: the experiment measures nothing (a correctness gate):
	// metrics are shown as info, never judged; failure rates, kernel
	// reports and selftests still are.
	GateOnly bool
	// KnownFailures: selftests (binary/test) that fail on this guest for
	// a diagnosed reason, shown as known rather than as failures. The
	// gate (a candidate failing where the baseline passes) is unchanged,
	// except for a known flaky test: its changes are shown, not flagged.
	KnownFailures map[string]KnownFailure
}

// KnownFailure is why a selftest fails on this guest. Flaky: it fails
// only some of the time on every kernel, so neither a pass nor a change
// of its outcome says anything about a candidate.
type KnownFailure struct {
	Reason string
	Flaky  bool
	// Kernels: the kernel series (MAJOR.MINOR) it was diagnosed on; a
	// set whose kernels are of another series does not know it. Empty:
	// every kernel.
	Kernels []string
	// Clock: the guest clock kind (ClockKind) it was diagnosed under,
	// for a failure that depends on how fast guest time passes; empty:
	// every clock.
	Clock string
}

// ClockKind is a provenance clock's kind: "icount" for "icount shift=N",
// else "host" (runs stored before the clock was recorded ran on it).
func ClockKind(clock string) string {
	if strings.HasPrefix(clock, "icount") {
		return "icount"
	}
	return "host"
}

// AppliesTo reports whether the failure is known on a kernel of release
// (uname -r, "6.1.192" or "6.12.118-amd64") under the guest clock
// (a provenance clock: "host", "icount shift=3"); an unknown release
// ("") matches only an entry for every kernel.
func (k KnownFailure) AppliesTo(release, clock string) bool {
	if k.Clock != "" && ClockKind(clock) != k.Clock {
		return false
	}
	if len(k.Kernels) == 0 {
		return true
	}
	for _, series := range k.Kernels {
		if release == series || strings.HasPrefix(release, series+".") || strings.HasPrefix(release, series+"-") {
			return true
		}
	}
	return false
}

// ValidKernelSeries reports whether s is MAJOR.MINOR ("6.12").
func ValidKernelSeries(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	return ok && allDigits(major) && allDigits(minor)
}

func allDigits(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Validate refuses options no comparison can honour.
func (o Options) Validate() error {
	if o.Alpha != 0 {
		if err := CheckAlpha("alpha", o.Alpha); err != nil {
			return err
		}
	}
	if o.GreyUpper != 0 && !(o.GreyUpper > 0 && o.GreyUpper <= 1) {
		return fmt.Errorf("grey-upper %g is outside (0, 1]", o.GreyUpper)
	}
	if o.RuleOut != 0 {
		if err := CheckRuleOut("rule-out", o.RuleOut); err != nil {
			return err
		}
	}
	if o.LoadBound != 0 {
		if err := CheckLoadBound("load-bound", o.LoadBound); err != nil {
			return err
		}
	}
	if o.Miss != 0 && !(o.Miss > 0 && o.Miss < 0.5) {
		return fmt.Errorf("miss %g is outside (0, 0.5)", o.Miss)
	}
	if o.Confidence != 0 && (o.Confidence <= 0 || o.Confidence >= 1) {
		return fmt.Errorf("confidence %g is outside (0, 1)", o.Confidence)
	}
	for name, v := range o.NoiseFloorPct {
		if name == "" {
			return fmt.Errorf("a noise floor without a metric name (want METRIC=PERCENT)")
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("noise floor of %s is %g%%: it must be a finite, non-negative percentage", name, v)
		}
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.GreyUpper == 0 {
		o.GreyUpper = DefaultGreyUpper
	}
	if o.RuleOut == 0 {
		o.RuleOut = DefaultRuleOut
	}
	if o.Miss == 0 {
		o.Miss = DefaultMiss
	}
	if o.LoadBound == 0 {
		o.LoadBound = DefaultLoadBound
	}
	return o
}

// DefaultGreyUpper is the grey zone's upper bound when none is given: the
// nightly's and run's --grey-upper default.
const DefaultGreyUpper = 0.2

// Summary is one variant's sample of one metric.
type Summary struct {
	N      int
	Median float64
	Lo, Hi float64 // confidence interval of the median
	// Mean and StddevPct (relative standard deviation, %) for the
	// lkp-tests view.
	Mean      float64
	StddevPct float64
	Values    []float64 `json:"-"`
}

// MarshalJSON writes a bound that benchmath could not compute (±Inf below
// 6 samples) or a NaN as null: encoding/json refuses both, and one small
// sample once made every JSON diff fail.
func (s Summary) MarshalJSON() ([]byte, error) {
	num := func(v float64) *float64 {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		N         int      `json:"n"`
		Median    *float64 `json:"median"`
		Lo        *float64 `json:"ci_lo"`
		Hi        *float64 `json:"ci_hi"`
		Mean      *float64 `json:"mean"`
		StddevPct *float64 `json:"stddev_pct"`
	}{s.N, num(s.Median), num(s.Lo), num(s.Hi), num(s.Mean), num(s.StddevPct)})
}

// Metric compares one metric between baseline and a candidate.
type Metric struct {
	Name      string               `json:"name"`
	Unit      string               `json:"unit"`
	Direction agentproto.Direction `json:"direction"`
	Base      Summary              `json:"base"`
	Cand      Summary              `json:"cand"`
	DeltaPct  float64              `json:"-"` // (cand-base)/|base|*100; ±Inf when base is 0 and cand is not, NaN when both are
	P         float64              `json:"p"`
	// Q is P adjusted for the number of metrics judged in this
	// comparison (Benjamini-Hochberg); the verdict is taken on Q.
	Q       float64 `json:"q"`
	Alpha   float64 `json:"alpha"`
	Primary bool    `json:"primary"`
	// Verdict: regression, improvement, ~ (not significant), unjudged
	// (its n could not reach alpha in its family), or info for
	// informational metrics that are never judged.
	Verdict  verdict.Change `json:"verdict"`
	Warnings []string       `json:"warnings"`
	// Family is the number of metrics its q was adjusted with.
	Family int `json:"family"`
	// CouldSeePct: for a metric that decides the verdict (a primary
	// one, or any when none is primary) found unchanged, the smallest
	// change this comparison would have found with 80% power (MDE);
	// +Inf when none, NaN when not computed.
	CouldSeePct float64 `json:"-"`
	// Seen: for an unjudged metric, why it looked changed all the same
	// (its boots do not overlap, its own p would pass its alpha, or its
	// change is beyond what the primary metric could see); empty when it
	// did not. A seen regression makes the comparison UNJUDGED, never
	// "no significant change" (see Unjudged).
	Seen string `json:"seen,omitempty"`
	// WorstPct: for a metric not called, the worst change its boots leave
	// possible, in % (+62: up to 62% worse for a lower-is-better metric;
	// -38 for a higher-is-better one): the one-sided bound at 1 -
	// Options.Miss. ±Inf when too few boots bound it; NaN when not
	// computed (a called metric, a value not positive, rule-out off).
	WorstPct float64 `json:"-"`
	// NotRuledOut: WorstPct reaches the comparison's margin
	// (Options.RuleOut, or the metric's noise floor when larger): a
	// regression that large is possible, so the comparison cannot pass.
	NotRuledOut bool `json:"not_ruled_out,omitempty"`
	// Watched: not a gating metric (Options.Gating): its margin need not
	// be ruled out for a pass, but a change seen or proven worse still
	// blocks one.
	Watched bool `json:"watched,omitempty"`
	// WatchedOpen: a watched metric whose WorstPct reaches the margin;
	// reported, never gating (NotRuledOut stays false).
	WatchedOpen bool `json:"watched_not_ruled_out,omitempty"`
	// LoadHeld: a timing metric that would have been a regression, not
	// called one because the sides ran at host loads too unlike
	// (Diff.LoadMismatch); its Verdict is unjudged.
	LoadHeld bool `json:"load_held,omitempty"`
}

// Holder counts how often one function held the worst irqs-off section.
type Holder struct {
	Name  string  `json:"name"`
	Count int     `json:"count"`
	Share float64 `json:"share"` // of all windows (or runs)
}

// Variant is everything known about one variant of the run.
type Variant struct {
	Name     string                 `json:"name"`
	Statuses map[results.Status]int `json:"statuses"` // status -> count
	OK       int                    `json:"ok"`
	// WorstHolders: holder of each run's overall worst section.
	WorstHolders []Holder `json:"worst_holders"`
	// WindowHolders: holder of each sampling window's worst section.
	WindowHolders []Holder `json:"window_holders"`
	WorstUS       Summary  `json:"worst_us"`
	// WorstSections: each run's worst section as "start -> end | top
	// frames", counted.
	WorstSections []Holder `json:"worst_sections"`
	// WindowUS: every sampling window's worst section, microseconds.
	WindowUS []float64 `json:"-"`
	// Selftests: the kernel's cgroup selftest outcomes.
	Selftests SelftestSet `json:"selftests"`
	// Reports: the kernel's own reports (WARNING, BUG, ...) by title.
	Reports []ReportCount `json:"kernel_reports"`
	// Failed counts cells whose kernel failed (crashed, timeout,
	// boot_failed, agent_failed, bad_output); Judged = OK + Failed.
	Failed int `json:"failed"`
	// FailureReports: the kernel reports of the failed cells only (the
	// failure's signature: a panic's title, a BUG's).
	FailureReports []ReportCount `json:"failure_reports,omitempty"`
	// Unavailable: metrics its kernel cannot produce (the agent's probe),
	// with the reason, in the order the cells reported them. Not
	// measured, never zero, never a failure.
	Unavailable []agentproto.Unavailable `json:"unavailable,omitempty"`
}

// Judged is the number of cells that say something about the kernel.
func (v *Variant) Judged() int { return v.OK + v.Failed }

// Diff is a baseline compared with each other variant.
type Diff struct {
	Baseline string
	Variants []*Variant          // baseline first
	Metrics  map[string][]Metric // candidate -> metrics, in metric order
	// SelftestChanges: candidate -> selftests whose outcome differs
	// from the baseline's.
	SelftestChanges map[string][]SelftestChange
	// Failures: candidate -> its failure rate against the baseline's.
	Failures map[string]FailureRate
	// Reports: candidate -> its kernel reports against the baseline's.
	Reports map[string][]ReportChange
	// LoadMismatch: candidate -> how its host load differed from the
	// baseline's, for a candidate whose load differed beyond
	// Options.LoadBound with both on the host's clock (hostload.go).
	LoadMismatch map[string]*LoadMismatch
	Options      Options
}

// BaselineError says the baseline itself could not be measured: no cell
// of it is ok, so nothing can be compared with it.
type BaselineError struct {
	Name     string
	Statuses map[results.Status]int
}

func (e *BaselineError) Error() string {
	return fmt.Sprintf("the baseline %s could not be measured: no ok cell (%s); nothing can be compared with it. The cells' errors and console tails: `kregress results show RUN` and the run's artifacts", e.Name, num.Statuses(e.Statuses))
}

// ExitStatus is BaselineFailed's.
func (e *BaselineError) ExitStatus() verdict.Exit { return verdict.BaselineFailed.Exit() }

// Group is one side of a comparison: a label and its results.
type Group struct {
	Label   string
	Results []*results.Result
}

// Compare builds the diff of one result set's variants against baseline.
// Only results with status ok contribute numbers.
func Compare(rs []*results.Result, baseline string, opts Options) (*Diff, error) {
	byVariant := map[string][]*results.Result{}
	var order []string
	for _, r := range rs {
		if _, ok := byVariant[r.Variant]; !ok {
			order = append(order, r.Variant)
		}
		byVariant[r.Variant] = append(byVariant[r.Variant], r)
	}
	if _, ok := byVariant[baseline]; !ok {
		return nil, fmt.Errorf("compare: no results for baseline variant %q (have: %v)", baseline, order)
	}
	groups := []Group{{Label: baseline, Results: byVariant[baseline]}}
	for _, v := range order {
		if v != baseline {
			groups = append(groups, Group{Label: v, Results: byVariant[v]})
		}
	}
	if len(groups) == 1 {
		return nil, fmt.Errorf("compare: these results have only the baseline variant %q: nothing to compare it with (give a second set)", baseline)
	}
	return CompareGroups(groups, opts)
}

// CompareGroups compares every group with the first one (the baseline):
// two variants of a run, one variant across two runs, two stores or two
// exported files alike.
func CompareGroups(groups []Group, opts Options) (*Diff, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	opts = opts.withDefaults()
	if len(groups) < 2 {
		return nil, fmt.Errorf("compare: need a baseline and at least one set to compare with it")
	}
	if err := checkOneCount(groups); err != nil {
		return nil, err
	}
	d := &Diff{Baseline: groups[0].Label, Metrics: map[string][]Metric{}, SelftestChanges: map[string][]SelftestChange{}, Failures: map[string]FailureRate{}, Reports: map[string][]ReportChange{}, LoadMismatch: map[string]*LoadMismatch{}, Options: opts}
	values := map[string]map[string][]float64{} // label -> metric -> values
	seen := &metricSet{meta: map[string]agentproto.Metric{}}
	for _, g := range groups {
		if _, dup := values[g.Label]; dup {
			return nil, fmt.Errorf("compare: two sets are both labelled %q", g.Label)
		}
		v, vals, err := summarizeGroup(g, opts, seen)
		if err != nil {
			return nil, err
		}
		values[g.Label] = vals
		d.Variants = append(d.Variants, v)
	}
	// Only a baseline without a single ok cell stops the comparison: a
	// candidate without one is a failure-rate regression, judged below
	// beside the others.
	if b := d.Variants[0]; b.OK == 0 {
		return nil, &BaselineError{Name: b.Name, Statuses: b.Statuses}
	}
	if err := seen.checkNoiseFloors(opts.NoiseFloorPct); err != nil {
		return nil, err
	}
	if len(opts.Primary) == 0 {
		opts.Primary = seen.appendPresent(opts.Primary, opts.DefaultPrimary)
		d.Options.Primary = opts.Primary
	}
	primary, order, err := seen.primaryFirst(opts.Primary)
	if err != nil {
		return nil, err
	}
	gating, err := seen.gatingSet(opts.Gating, primary)
	if err != nil {
		return nil, err
	}
	base := groups[0].Label
	bv0 := d.Variants[0]
	for i, g := range groups[1:] {
		cand := d.Variants[i+1]
		d.Failures[g.Label] = compareFailures(bv0, cand)
		if ch := diffSelftests(bv0.Selftests, cand.Selftests, opts.KnownFailures); len(ch) > 0 {
			d.SelftestChanges[g.Label] = ch
		}
		if rc := diffReports(bv0, cand); len(rc) > 0 {
			d.Reports[g.Label] = rc
		}
		if l := loadMismatch(groups[0].Results, g.Results, opts.LoadBound); l != nil {
			d.LoadMismatch[g.Label] = l
		}
		if cand.OK == 0 {
			continue // nothing to measure; its failure rate speaks
		}
		ms := measureMetrics(seen, order, primary, gating, values[base], values[g.Label], opts)
		if len(ms) == 0 {
			return nil, fmt.Errorf("compare: %s and %s have no metric in common (ok runs: %d and %d)", base, g.Label, bv0.OK, cand.OK)
		}
		d.Metrics[g.Label] = ms
	}
	Rejudge(d)
	return d, nil
}

// metricSet is the metrics the groups' ok cells report: each one's first
// description, names in the order first seen.
type metricSet struct {
	meta  map[string]agentproto.Metric
	order []string
}

func (s *metricSet) see(m agentproto.Metric) {
	if _, ok := s.meta[m.Name]; !ok {
		s.meta[m.Name] = m
		s.order = append(s.order, m.Name)
	}
}

func (s *metricSet) has(name string) bool {
	_, ok := s.meta[name]
	return ok
}

// checkNoiseFloors refuses a noise floor for a metric the results do not
// have (a typo would otherwise quietly judge without it).
func (s *metricSet) checkNoiseFloors(floors map[string]float64) error {
	var unknown []string
	for name := range floors {
		if !s.has(name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("compare: noise floor for unknown metric(s) %s (these results have: %s)", strings.Join(unknown, ", "), strings.Join(s.order, ", "))
	}
	return nil
}

// appendPresent appends to primary those of names these results have
// (the default primary metrics, when none are named).
func (s *metricSet) appendPresent(primary, names []string) []string {
	for _, name := range names {
		if s.has(name) {
			primary = append(primary, name)
		}
	}
	return primary
}

// primaryFirst checks that every primary metric is one of the results'
// and returns them as a set, and the order metrics are reported in:
// primary metrics first, in the order the experiment names them.
func (s *metricSet) primaryFirst(primaries []string) (map[string]bool, []string, error) {
	primary := map[string]bool{}
	for _, name := range primaries {
		if !s.has(name) {
			return nil, nil, fmt.Errorf("compare: primary metric %q is not one of these results' metrics (%s)", name, strings.Join(s.order, ", "))
		}
		primary[name] = true
	}
	order := append([]string(nil), primaries...)
	for _, name := range s.order {
		if !primary[name] {
			order = append(order, name)
		}
	}
	return primary, order, nil
}

// gatingSet checks that every named gating metric is one of the
// results' and returns the set of metrics a pass must rule out: the named
// ones, or with none named the primary metrics and every metric where
// higher is better (every metric, when none is primary).
func (s *metricSet) gatingSet(named []string, primary map[string]bool) (map[string]bool, error) {
	gating := map[string]bool{}
	for _, name := range named {
		if !s.has(name) {
			return nil, fmt.Errorf("compare: gating metric %q is not one of these results' metrics (%s)", name, strings.Join(s.order, ", "))
		}
		gating[name] = true
	}
	if len(named) > 0 {
		return gating, nil
	}
	// Without a primary metric every judged metric decides the verdict
	// (Metric.deciding), so every one gates.
	anyPrimary := len(primary) > 0
	for _, name := range s.order {
		gating[name] = !anyPrimary || primary[name] || s.meta[name].Direction == agentproto.HigherIsBetter
	}
	return gating, nil
}

// measureMetrics compares the candidate's values of every metric (in
// order) with the baseline's; a metric one side lacks is left out.
func measureMetrics(seen *metricSet, order []string, primary, gating map[string]bool, base, cand map[string][]float64, opts Options) []Metric {
	var ms []Metric
	for _, name := range order {
		bv, cv := base[name], cand[name]
		if len(bv) == 0 || len(cv) == 0 {
			continue
		}
		m := measureMetric(seen.meta[name], bv, cv, opts)
		m.Primary = primary[name]
		m.Watched = m.Direction != agentproto.Informational && !gating[name]
		ms = append(ms, m)
	}
	return ms
}

// groupTally gathers one group's cells: its Variant, its metrics' values
// and the counts behind its irqsoff holders.
type groupTally struct {
	v                                    *Variant
	values                               map[string][]float64 // metric -> values
	worstCounts, windowCounts, sigCounts map[string]int
	worst                                []float64
	windows, sigs                        int
}

// summarizeGroup is g's Variant and its metrics' values; the metrics it
// sees are added to seen.
func summarizeGroup(g Group, opts Options, seen *metricSet) (*Variant, map[string][]float64, error) {
	t := &groupTally{
		v:           &Variant{Name: g.Label, Statuses: map[results.Status]int{}},
		values:      map[string][]float64{},
		worstCounts: map[string]int{}, windowCounts: map[string]int{}, sigCounts: map[string]int{},
	}
	for _, r := range g.Results {
		if err := t.add(r, seen); err != nil {
			return nil, nil, err
		}
	}
	v := t.v
	v.WorstHolders = holders(t.worstCounts, len(t.worst))
	v.WindowHolders = holders(t.windowCounts, t.windows)
	v.WorstSections = holders(t.sigCounts, t.sigs)
	v.WorstUS = summarize(t.worst, opts.Confidence)
	v.Selftests = selftestSet(g.Results)
	v.Selftests.explain(opts.KnownFailures)
	v.Reports = reportCounts(g.Results)
	v.FailureReports = reportCounts(failedCells(g.Results))
	return v, t.values, nil
}

// add counts r's status and, when it is ok, its metrics (refusing one
// without a direction or not a number), unavailable metrics and irqsoff
// holders.
func (t *groupTally) add(r *results.Result, seen *metricSet) error {
	v := t.v
	v.Statuses[r.Status]++
	if r.Status.KernelFailure() {
		v.Failed++
	}
	if !r.Status.OK() {
		return nil
	}
	v.OK++
	for _, m := range r.Metrics {
		switch m.Direction {
		case agentproto.HigherIsBetter, agentproto.LowerIsBetter, agentproto.Informational:
		default:
			return fmt.Errorf("compare: %s: metric %q has no direction (%q): kregress cannot tell a regression from an improvement", v.Name, m.Name, m.Direction)
		}
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			// go-moremath's U test allocates without bound on
			// a NaN: refuse before it is reached.
			return fmt.Errorf("compare: %s rep %d: metric %q is %v: not a measurement (the cell's output is bad)", v.Name, r.Repetition, m.Name, m.Value)
		}
		seen.see(m)
		t.values[m.Name] = append(t.values[m.Name], m.Value)
	}
	if r.IrqsoffHolder != "" {
		t.worstCounts[r.IrqsoffHolder]++
		t.worst = append(t.worst, r.IrqsoffWorstUS)
	}
	for _, u := range unavailableOf(r.Document) {
		if !slices.ContainsFunc(v.Unavailable, func(x agentproto.Unavailable) bool { return x.Metric == u.Metric }) {
			v.Unavailable = append(v.Unavailable, u)
		}
	}
	irq := irqsoffOf(r.Document)
	if ws := irq.Worst; ws != nil {
		t.sigCounts[signature(*ws)]++
		t.sigs++
	}
	for _, w := range irq.Windows {
		if w.LatencyUS > 0 && w.Holder != "" {
			t.windowCounts[w.Holder]++
			t.windows++
			v.WindowUS = append(v.WindowUS, float64(w.LatencyUS))
		}
	}
	return nil
}

// Rejudge makes diffs one false-discovery family (and their primary
// metrics another): every candidate's metrics in every diff are adjusted
// together, then judged. A CI gate that fails on any regression of any
// candidate needs exactly that family; the nightly, which compares each
// variant with its own baseline in its own diff, rejudges them together.
func Rejudge(diffs ...*Diff) {
	var all []*Metric
	for _, d := range diffs {
		for _, v := range d.Variants[1:] {
			ms := d.Metrics[v.Name]
			for j := range ms {
				ms[j].Warnings = withoutFamilyWarnings(ms[j].Warnings)
				all = append(all, &ms[j])
			}
		}
	}
	anyPrimary, anySecondary := false, false
	for _, m := range all {
		if m.Direction != agentproto.Informational {
			anyPrimary = anyPrimary || m.Primary
			anySecondary = anySecondary || !m.Primary
		}
	}
	// Two families each at alpha could together flag a comparison in
	// which nothing changed up to twice as often as alpha says: when
	// both exist, alpha is split, PrimaryShare to the primary family and
	// the rest to the secondary one, so a null comparison is flagged with
	// probability at most alpha.
	for _, d := range diffs {
		for _, v := range d.Variants[1:] {
			ms := d.Metrics[v.Name]
			for j := range ms {
				ms[j].Alpha = d.Options.Alpha
				if anyPrimary && anySecondary {
					if ms[j].Primary {
						ms[j].Alpha *= PrimaryShare
					} else {
						ms[j].Alpha *= 1 - PrimaryShare
					}
				}
			}
		}
	}
	adjustBH(all)
	judgeFailures(diffs...)
	for _, d := range diffs {
		for _, v := range d.Variants[1:] {
			ms := d.Metrics[v.Name]
			for j := range ms {
				judge(&ms[j], d.Options)
				ms[j].CouldSeePct = math.NaN()
				if ms[j].Verdict == verdict.NoChange && (ms[j].Primary || !anyPrimary) {
					ms[j].CouldSeePct = couldSee(&ms[j])
				}
			}
			markSeen(ms, d.Options)
			markRuleOut(ms, d.Options)
			holdForLoad(ms, d.LoadMismatch[v.Name])
		}
	}
}

// withoutFamilyWarnings drops the warnings adjustBH adds, so that a
// rejudged metric carries them once, for its new family.
func withoutFamilyWarnings(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !strings.Contains(w, "are judged together") {
			out = append(out, w)
		}
	}
	return out
}

// measureMetric summarises both samples and tests them (Mann-Whitney U);
// judge decides once every metric's p is known and adjusted.
func measureMetric(meta agentproto.Metric, bv, cv []float64, opts Options) Metric {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opts.Alpha
	s1, s2 := benchmath.NewSample(bv, &th), benchmath.NewSample(cv, &th)
	sum1 := benchmath.AssumeNothing.Summary(s1, opts.Confidence)
	sum2 := benchmath.AssumeNothing.Summary(s2, opts.Confidence)
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	m := Metric{
		Name: meta.Name, Unit: meta.Unit, Direction: meta.Direction,
		Base:  withMoments(Summary{N: len(bv), Median: sum1.Center, Lo: sum1.Lo, Hi: sum1.Hi}, bv),
		Cand:  withMoments(Summary{N: len(cv), Median: sum2.Center, Lo: sum2.Lo, Hi: sum2.Hi}, cv),
		P:     cmp.P,
		Q:     cmp.P,
		Alpha: opts.Alpha,
	}
	switch {
	case sum1.Center != 0:
		m.DeltaPct = (sum2.Center - sum1.Center) / math.Abs(sum1.Center) * 100
	case sum2.Center == 0:
		m.DeltaPct = math.NaN()
	default:
		m.DeltaPct = math.Inf(int(math.Copysign(1, sum2.Center)))
	}
	// benchmath's own warnings speak of its CompareAlpha; say instead
	// what a reader needs: whether any p below alpha was possible, and
	// why a confidence interval is missing.
	if minP := MinMannWhitneyP(len(bv), len(cv)); minP > opts.Alpha {
		m.Warnings = append(m.Warnings, fmt.Sprintf("with %d vs %d samples the smallest possible p is %.3f > alpha %.2f: no change can be significant; run more repetitions", len(bv), len(cv), minP, opts.Alpha))
	}
	for _, s := range []struct {
		n      int
		lo, hi float64
	}{{len(bv), sum1.Lo, sum1.Hi}, {len(cv), sum2.Lo, sum2.Hi}} {
		if math.IsInf(s.lo, 0) || math.IsInf(s.hi, 0) {
			m.Warnings = append(m.Warnings, fmt.Sprintf("no %.0f%% confidence interval for a median of %d samples (it needs at least %d)", opts.Confidence*100, s.n, minSamplesForCI(opts.Confidence)))
			break
		}
	}
	return m
}

// minSamplesForCI is the smallest n whose order statistics bound the
// median at the given confidence (0.5^(n-1) <= 1 - confidence).
func minSamplesForCI(confidence float64) int {
	n := 2
	for math.Pow(0.5, float64(n-1)) > 1-confidence {
		n++
	}
	return n
}

// judge sets m's verdict from its adjusted p (Q), its direction and its
// noise floor.
func judge(m *Metric, opts Options) {
	floor, hasFloor := opts.NoiseFloorPct[m.Name]
	switch {
	case m.Direction == agentproto.Informational || opts.GateOnly:
		m.Verdict = verdict.Info
	case m.Q >= m.Alpha && !Reachable(m.Base.N, m.Cand.N, m.Family, m.Alpha):
		m.Verdict = verdict.Unjudged
	case m.Q >= m.Alpha || m.Base.Median == m.Cand.Median:
		m.Verdict = verdict.NoChange
	case hasFloor && math.IsInf(m.DeltaPct, 0):
		// From a median of 0 any change is infinitely many percent:
		// the floor cannot excuse it, and the reader is told why.
		m.warn(fmt.Sprintf("%s: the baseline median is 0, so the change is not a percentage and the noise floor of %g%% cannot apply", m.Name, floor))
		m.Verdict = direction(m)
	case withinFloor(m, opts):
		m.Verdict = verdict.NoChange
		m.warn(fmt.Sprintf("%s: change within its noise floor of %g%%", m.Name, floor))
	default:
		m.Verdict = direction(m)
	}
}

func direction(m *Metric) verdict.Change {
	if (m.Cand.Median > m.Base.Median) == (m.Direction == agentproto.HigherIsBetter) {
		return verdict.Improvement
	}
	return verdict.Regression
}

func summarize(v []float64, confidence float64) Summary {
	if len(v) == 0 {
		return Summary{}
	}
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &benchmath.DefaultThresholds), confidence)
	return withMoments(Summary{N: len(v), Median: s.Center, Lo: s.Lo, Hi: s.Hi}, v)
}

func holders(counts map[string]int, total int) []Holder {
	var hs []Holder
	for name, c := range counts {
		hs = append(hs, Holder{Name: name, Count: c, Share: float64(c) / float64(max(total, 1))})
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].Count != hs[j].Count {
			return hs[i].Count > hs[j].Count
		}
		return hs[i].Name < hs[j].Name
	})
	return hs
}

// irqsoffOf reads the irqsoff part of an agent document, once per result
// (an empty one when there is no document or no tracer result).
// unavailableOf reads the metrics a cell's kernel could not produce.
func unavailableOf(doc []byte) []agentproto.Unavailable {
	var d struct {
		Unavailable []agentproto.Unavailable `json:"unavailable"`
	}
	if len(doc) == 0 || json.Unmarshal(doc, &d) != nil {
		return nil
	}
	return d.Unavailable
}

func irqsoffOf(doc []byte) agentproto.Irqsoff {
	var d struct {
		Irqsoff *agentproto.Irqsoff `json:"irqsoff"`
	}
	if len(doc) == 0 || json.Unmarshal(doc, &d) != nil || d.Irqsoff == nil {
		return agentproto.Irqsoff{}
	}
	return *d.Irqsoff
}

// signature names a section by where it started and ended and its top
// three stack frames, the way the seed's trace reads.
func signature(s agentproto.Section) string {
	frames := s.Stack
	if len(frames) > 3 {
		frames = frames[:3]
	}
	sig := s.StartedAt + " -> " + s.EndedAt
	if len(frames) > 0 {
		sig += " | " + strings.Join(frames, " < ")
	}
	return sig
}

// withMoments adds mean and relative standard deviation to s.
func withMoments(s Summary, v []float64) Summary {
	s.Values = v
	if len(v) == 0 {
		return s
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	s.Mean = sum / float64(len(v))
	if len(v) > 1 && s.Mean != 0 {
		ss := 0.0
		for _, x := range v {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.StddevPct = math.Sqrt(ss/float64(len(v)-1)) / math.Abs(s.Mean) * 100
	}
	return s
}

// Failing lists everything that makes a comparison fail a CI gate:
// regressions (failure rates, then metrics), new kernel reports, new
// selftest failures.
func (d *Diff) Failing() []string {
	out := append(d.Regressions(), d.NewReports()...)
	return append(out, d.SelftestFlags()...)
}

// warn adds w to m's warnings once (a metric can be judged twice: see
// Rejudge).
func (m *Metric) warn(w string) {
	for _, x := range m.Warnings {
		if x == w {
			return
		}
	}
	m.Warnings = append(m.Warnings, w)
}

package main

// The host-independence rows: boots of one kernel measured in two
// sessions of one host, one beside a CPU hog and one without it (the
// "@loaded" and "@idle" cells of testdata/hostload.csv), judged through
// the diff's own code (compare.CompareGroups and compare.Gate, the
// options diff uses). A comparison that crosses sessions is what a
// nightly against its last good night and a diff of runs of different
// days are; the clock decides whether the host's load between them is
// read as the kernel's change. The sessions are compared by a
// permutation test, not by resampling each session's few boots: drawn
// with replacement from 8 boots, a side is less spread than the kernel's
// boots are, and two sessions 0.4% apart then look different far more
// often than alpha. Each clock's rows use the same rule; the host
// clock's are the twin that shows the rows can fail.

import (
	_ "embed"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

func init() {
	scenarios = append(scenarios,
		Scenario{Name: "host-load-real-boots", Run: func(trials int, seed int64) []Row { return hostLoadRows(trials, seed, "icount", false) }},
		Scenario{Name: mutationPrefix + "-host-load-real-boots", Run: func(trials int, seed int64) []Row { return hostLoadRows(trials, seed, "host", true) }},
	)
}

// hostLoadCSV is the data set of these rows (its provenance in its
// header): the default experiment's baseline booted in both sessions
// with each clock, each run's experiment named
// hostLoadExperiment@CLOCK-SESSION.
//
//go:embed testdata/hostload.csv
var hostLoadCSV string

// hostLoadExperiment is the default experiment's name in the data set.
const hostLoadExperiment = "rstat-relock"

// hostLoadCells are hostLoadCSV's cells, parsed once.
var hostLoadCells = func() []*realCell {
	cs, err := parseRealBoots(hostLoadCSV)
	must(err)
	return cs
}()

// hostLoadCell is the cell of variant measured with clock in session
// ("loaded" or "idle"); it panics when the data set has none.
func hostLoadCell(clock, session, variant string) *realCell {
	name := fmt.Sprintf("%s@%s-%s", hostLoadExperiment, clock, session)
	for _, c := range hostLoadCells {
		if c.Experiment == name && c.Variant == variant {
			return c
		}
	}
	must(fmt.Errorf("host-load boots: no cell %s/%s", name, variant))
	return nil
}

// bootResults are boots of cell (rows of cell.Boots) as ok results of
// variant, every judged metric with its real name, unit and direction.
func bootResults(cell *realCell, boots [][]float64, variant string) []*results.Result {
	rs := make([]*results.Result, len(boots))
	for i, boot := range boots {
		ms := make([]agentproto.Metric, len(cell.Metrics))
		for k, name := range cell.Metrics {
			ms[k] = agentproto.Metric{Name: name, Unit: cell.Units[k], Direction: cell.Dirs[k], Value: boot[k]}
		}
		rs[i] = &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK, Metrics: ms}
	}
	return rs
}

// gatingP is the smallest Mann-Whitney p of the gating metrics (the
// primary and throughput, as diff judges them by default) when `kregress
// diff` compares boots b of cell with boots a: how strongly the diff
// would tell the two sets apart.
func gatingP(cell *realCell, a, b [][]float64) float64 {
	d, err := compare.CompareGroups([]compare.Group{
		{Label: "base", Results: bootResults(cell, a, "base")},
		{Label: "cand", Results: bootResults(cell, b, "cand")},
	}, realOpts())
	must(err)
	p := 1.0
	for _, m := range d.Metrics["cand"] {
		if !m.Watched && m.Direction != agentproto.Informational && !math.IsNaN(m.P) {
			p = min(p, m.P)
		}
	}
	return p
}

// sessionRank is where the real split of boots into the two sessions
// falls among random splits of the same boots: the share of random
// splits whose gatingP is at or below the sessions' own. If the host's
// load between the sessions left the figures alone, the sessions are
// exchangeable and the share is uniform; a share under 0.05 says the
// sessions differ beyond what chance splits give.
func sessionRank(rng *rand.Rand, loaded, idle *realCell, trials int) (real float64, share float64) {
	cell := loaded
	real = gatingP(cell, idle.Boots, loaded.Boots)
	pooled := append(append([][]float64(nil), idle.Boots...), loaded.Boots...)
	below := 0
	for range trials {
		rng.Shuffle(len(pooled), func(i, j int) { pooled[i], pooled[j] = pooled[j], pooled[i] })
		if gatingP(cell, pooled[:len(idle.Boots)], pooled[len(idle.Boots):]) <= real {
			below++
		}
	}
	return real, float64(below) / float64(trials)
}

// diffOutcome is what `kregress diff` of n boots of base against n of
// cand gates to, each side resampled whole from its cell, cand's metrics
// scaled by scale (a factor > 1 is that many times worse).
func diffOutcome(rng *rand.Rand, base, cand *realCell, n int, scale map[string]float64) verdict.Comparison {
	k := min(len(base.Metrics), len(cand.Metrics))
	d, err := compare.CompareGroups([]compare.Group{
		{Label: "base", Results: realResults(rng, base, "base", n, k, nil)},
		{Label: "cand", Results: realResults(rng, cand, "cand", n, k, scale)},
	}, realOpts())
	must(err)
	v, _ := compare.Gate(false, d)
	return v
}

// hostLoadRows are the rows of clock's cells. With mutated (the host
// clock) every row is a mutation row: it must miss its goal.
func hostLoadRows(trials int, seed int64, clock string, mutated bool) []Row {
	loaded := hostLoadCell(clock, "loaded", "stock")
	idle := hostLoadCell(clock, "idle", "stock")
	// The permutation pools boots of both cells under one cell's metric
	// names, so both must list the same metrics in the same order.
	if !slices.Equal(loaded.Metrics, idle.Metrics) {
		must(fmt.Errorf("host-load boots: clock %s: the sessions' metrics differ: %v and %v", clock, loaded.Metrics, idle.Metrics))
	}
	from := fmt.Sprintf("clock %s, real boots of stock: %d with a CPU hog, %d without", clock, len(loaded.Boots), len(idle.Boots))
	rng := rand.New(rand.NewPCG(uint64(seed), 1500))
	real, share := sessionRank(rng, loaded, idle, trials)
	r := Row{
		Scenario: fmt.Sprintf("the two sessions told apart by diff's gating metrics no more than random splits of their boots (%s; diff of the hog session against the other: smallest gating p %.3g)", from, real),
		Figure:   fmt.Sprintf("random splits at or below that p: %.1f%% of %d", 100*share, trials),
		Goal:     ">= 5% (the sessions exchangeable)",
		Met:      share >= 0.05,
	}
	if mutated {
		return []Row{mutant("the host clock under TCG", r)}
	}
	rows := []Row{r}
	// A 1.5x change in a gating metric (the primary; throughput) must
	// almost never pass; its null twin (no change) shows the row can miss.
	for i, metric := range []string{loaded.Metrics[0], "reads_per_sec"} {
		for j, factor := range []float64{1.5, 1} {
			rng := rand.New(rand.NewPCG(uint64(seed), uint64(1600+10*i+j)))
			var t tally
			for range trials {
				t.add(diffOutcome(rng, idle, loaded, 5, map[string]float64{metric: factor}))
			}
			scenario := fmt.Sprintf("%s %gx worse, 5+5 diff, the baseline from the session without the hog, %s", metric, factor, from)
			if factor == 1 {
				scenario = fmt.Sprintf("null twin of the row above (%s unchanged), %s", metric, from)
			}
			r := Row{Scenario: scenario, Figure: t.String(), Goal: "pass <= 0.01", Met: float64(t.pass)/float64(t.n) <= 0.01}
			if factor == 1 {
				// The twin is the row's own check: it must miss.
				r = mutant("no change", r)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// tally counts a row's outcomes.
type tally struct{ pass, regression, unjudged, n int }

func (t *tally) add(v verdict.Comparison) {
	t.n++
	switch v {
	case verdict.ComparisonPass:
		t.pass++
	case verdict.ComparisonRegression:
		t.regression++
	case verdict.ComparisonUnjudged:
		t.unjudged++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("pass %s, regression %s, UNJUDGED %s", rate(t.pass, t.n), rate(t.regression, t.n), rate(t.unjudged, t.n))
}

package main

// Nights through nightly's Night.Run itself, with a store: its look loop
// (the grey zone measured again), its baseline (the newest good or
// accepted night), its known flaky titles, its change points. A simulated
// runner stores each run's cells as the pipeline would; everything else
// is the product's.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

const nightExperiment = "rstat-every-n"

// simRunner stores a run of two variants, cfg.Repetitions cells each:
// two metrics log-normal with CV 0.05, or, with real set, every judged
// metric of a boot resampled whole from the variant's own cell; a cell
// crashed with the panic flakyTitle with probability flake.
type simRunner struct {
	store   results.Store
	rng     *rand.Rand
	flake   float64
	crashes int // cells crashed so far
	// once: only the first cell crashes (with the flaky title).
	once bool
	// real: each variant's cell of real boots (realRunnerCells).
	real map[string]*realCell
}

// realRunnerCells are the real cells a simRunner's variants resample:
// the default experiment's, whose variants it stores.
func realRunnerCells() map[string]*realCell {
	return map[string]*realCell{"stock": realCellOf(realExperiment, "stock"), "per-cpu-relock": realCellOf(realExperiment, "per-cpu-relock")}
}

// metrics is one ok boot's figures of variant v.
func (s *simRunner) metrics(v string) []agentproto.Metric {
	if s.real != nil {
		return s.real[v].metrics(s.rng, nil)
	}
	return []agentproto.Metric{
		{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 * math.Exp(0.05*s.rng.NormFloat64())},
		{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 50 * math.Exp(0.05*s.rng.NormFloat64())},
	}
}

func (s *simRunner) Run(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error) {
	run := &results.Run{Experiment: cfg.Experiment, Family: cfg.Family, Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.store.CreateRun(ctx, run); err != nil {
		return 0, err
	}
	seq := 0
	for rep := 1; rep <= cfg.Repetitions; rep++ {
		for _, v := range run.Variants {
			seq++
			r := &results.Result{RunID: run.ID, Variant: v, Repetition: rep, Seq: seq, Status: results.StatusOK,
				Provenance: results.Provenance{Accel: "tcg", VCPUs: 2, MemoryMB: 1024, ConfigSHA256: "cafe", GitCommit: "0123456789abcdef0123456789abcdef01234567"},
				Metrics:    s.metrics(v)}
			if (s.once && seq == 1) || (!s.once && s.rng.Float64() < s.flake) {
				r.Status, r.Metrics = results.StatusCrashed, nil
				r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: flakyTitle, Count: 1}}
				s.crashes++
			}
			if err := s.store.AddResult(ctx, r); err != nil {
				return 0, err
			}
		}
	}
	return run.ID, s.store.FinishRun(ctx, run.ID, results.RunComplete, "")
}

func (s *simRunner) Resume(context.Context, *config.Config, *variants.Selection, int64) error {
	return errors.New("the simulated runner does not resume")
}

// nightRunRows: stores of nightsPerStore nights each, nothing changed,
// both variants crashing with the same flaky title in rate of boots. Each
// store starts with one night that printed the title and that a person
// accepted (a flake is known once someone has seen it), then one clean
// good night; every later night is a trial. weak accepts nothing: the
// title is never known, and returns only the crash row, as a mutation.
func nightRunRows(trials int, seed int64, weak bool) []Row {
	return nightRunRowsOn(trials, seed, weak, false)
}

// nightRunRowsOn is nightRunRows, with real each variant's ok boots
// resampled from its own cell of real boots (every judged metric). On
// real boots the night's third outcome, UNJUDGED (the boots cannot rule
// out a regression of the margin), is counted apart: it is no false
// alarm (verdictRunNull's rows show it as a figure too), so the
// false-alarm row counts the nights that failed (a regression, a crash),
// and the UNJUDGED nights are a row of their own, a figure.
func nightRunRowsOn(trials int, seed int64, weak, real bool) []Row {
	const nightsPerStore, flakeRate = 40, 0.05
	stores := max(trials/(8*nightsPerStore), 1)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kregress-calibrate-")
	must(err)
	defer os.RemoveAll(dir)
	stream, cells := uint64(900), map[string]*realCell(nil)
	if real {
		stream, cells = 1900, realRunnerCells()
	}
	nights, crashNights, crashed, flagged, unjudged := 0, 0, 0, 0, 0
	for s := 0; s < stores; s++ {
		st, err := store.OpenSQLite(filepath.Join(dir, fmt.Sprintf("s%d.db", s)))
		must(err)
		sim := &simRunner{store: st, rng: rand.New(rand.NewPCG(uint64(seed), stream+uint64(s))), real: cells}
		n := simNight(st, sim)
		sim.once = true // the night someone saw the flake and accepted it
		first := n.Run(ctx, nightExperiment)
		sim.once = false
		for _, id := range first.RunIDs {
			if weak {
				break
			}
			must(st.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkAccepted, Who: "kregress-calibrate", Reason: "known flake"}))
		}
		sim.flake = 0 // a clean good night: the baseline
		if r := n.Run(ctx, nightExperiment); r.Error != "" {
			must(errors.New(r.Error))
		}
		sim.flake = flakeRate
		for i := 0; i < nightsPerStore; i++ {
			before := sim.crashes
			r := n.Run(ctx, nightExperiment)
			nights++
			if sim.crashes > before {
				crashNights++
			}
			if r.Outcome == verdict.KernelFailure || crashFlaggedCases(r.Cases) {
				crashed++
			}
			switch r.Outcome {
			case verdict.NightPass:
			case verdict.NightUnjudged:
				unjudged++
			default:
				flagged++
			}
		}
		st.Close()
	}
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(nights))
	goal := fmt.Sprintf("<= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se)
	met := func(k int) bool { return float64(k)/float64(nights) <= verdictAlpha+2*se }
	what := fmt.Sprintf("Night.Run with a store, nothing changed, the same flaky panic title in %.0f%% of both variants' boots, 8 boots, 2 looks", flakeRate*100)
	if real {
		what += fmt.Sprintf(", ok boots real boots resampled (each variant from its own %s cell, %d judged metrics)", realExperiment, len(cells["stock"].Metrics))
	}
	crashRow := Row{Scenario: what + ": nights failed on a crash", Figure: fmt.Sprintf("%s (%d nights had a crashed cell)", rate(crashed, nights), crashNights), Goal: goal, Met: met(crashed)}
	if weak {
		return []Row{mutant("no history: nobody accepted the night that showed the flake, so it is judged as new", crashRow)}
	}
	if !real {
		return []Row{
			crashRow,
			{Scenario: what + ": nights not passed (any reason)", Figure: rate(flagged+unjudged, nights), Goal: goal, Met: met(flagged + unjudged)},
		}
	}
	return []Row{
		crashRow,
		{Scenario: what + ": nights failed (any reason but UNJUDGED: a false alarm)", Figure: rate(flagged, nights), Goal: goal, Met: met(flagged)},
		{Scenario: what + ": nights UNJUDGED (not passed, no false alarm)", Figure: fmt.Sprintf("%s (not passed for any reason %s)", rate(unjudged, nights), rate(flagged+unjudged, nights)), Goal: "figure (no goal)", Met: true},
	}
}

// simNight is a Night over st whose runs sim stores: alpha 0.05, one
// extra round for the grey zone, 8 boots a variant.
func simNight(st results.Store, sim *simRunner) *nightly.Night {
	return &nightly.Night{Store: st, Runner: sim, Alpha: verdictAlpha, GreyUpper: 0.2, ExtraRounds: 1, Who: "kregress-calibrate",
		Load: func(e string) (*config.Config, error) {
			cfg, _, err := config.Load(e, nil)
			if err == nil {
				cfg.Repetitions = 8
			}
			return cfg, err
		}}
}

// nightShiftRows: does a night through Night.Run list a shift when
// nothing changed? The nights of one store share their history (a shift
// listed once is listed again every later night), so each store is one
// trial: its last night, after shiftNights nights of history.
func nightShiftRows(trials int, seed int64) []Row { return nightShiftRowsOn(trials, seed, false) }

// nightShiftRowsOn is nightShiftRows, with real each variant's boots
// resampled from its own cell of real boots (every judged metric).
func nightShiftRowsOn(trials int, seed int64, real bool) []Row {
	const shiftNights = 10
	stores := max(trials/16, 1)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kregress-calibrate-")
	must(err)
	defer os.RemoveAll(dir)
	stream, cells := uint64(5000), map[string]*realCell(nil)
	if real {
		stream, cells = 15000, realRunnerCells()
	}
	listed := 0
	for s := 0; s < stores; s++ {
		st, err := store.OpenSQLite(filepath.Join(dir, fmt.Sprintf("s%d.db", s)))
		must(err)
		n := simNight(st, &simRunner{store: st, rng: rand.New(rand.NewPCG(uint64(seed), stream+uint64(s))), real: cells})
		var r *nightreport.Result
		for i := 0; i < shiftNights; i++ {
			r = n.Run(ctx, nightExperiment)
		}
		if r.Error != "" {
			must(errors.New(r.Error))
		}
		if len(r.Shifts) > 0 {
			listed++
		}
		st.Close()
	}
	se := math.Sqrt(verdictAlpha * (1 - verdictAlpha) / float64(stores))
	series := "2 variants x 2 metrics"
	if real {
		series = fmt.Sprintf("2 variants x %d metrics, real boots resampled, each variant from its own %s cell", len(cells["stock"].Metrics), realExperiment)
	}
	return []Row{{
		Scenario: fmt.Sprintf("Night.Run with a store, nothing changed: night %d (and its looks) lists a shift (%s; one store a trial)", shiftNights, series),
		Figure:   "listed in " + rate(listed, stores),
		Goal:     fmt.Sprintf("<= %.2f (+2 s.e. %.4f)", verdictAlpha, 2*se),
		Met:      float64(listed)/float64(stores) <= verdictAlpha+2*se,
	}}
}

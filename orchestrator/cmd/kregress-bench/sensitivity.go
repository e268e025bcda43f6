package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/noise"
)

// sensitiveExperiment is the built-in experiment whose spread the
// sensitivity goals are about (see a 5% change with 8 boots).
const sensitiveExperiment = "rstat-relock-icount-1cpu"

// sensitivityMetrics are the goal's metrics: throughput and the lock
// hold's tail.
var sensitivityMetrics = []string{"reads_per_sec", "rstat_lock_hold_p99_us", "rstat_lock_hold_reader_p99_us"}

// benchSensitivity runs the null comparison of the sensitive experiment:
// its baseline kernel as two variants, a and b, boots + boots cells in
// shuffled order. One run gives both figures: the spread between boots of
// one kernel (each side's cells are boots of the same kernel) and what the
// comparison says about two identical kernels.
func benchSensitivity(ctx context.Context, boots int) error {
	cfg, _, err := config.Load(sensitiveExperiment, nil)
	if err != nil {
		return err
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return err
	}
	null, err := sameKernelTwice(sel)
	if err != nil {
		return err
	}
	store, dir, done, err := tempStore("kregress-bench-null-")
	if err != nil {
		return err
	}
	defer done()
	cfg.ResultsDir = dir
	cfg.Experiment = "bench-null:" + cfg.Experiment
	cfg.Repetitions = boots
	cfg.Order = "shuffled"
	id, _, err := (&session.Session{Store: store, Report: logf}).Measure(ctx, cfg, null, 0)
	if err != nil {
		return err
	}
	rs, err := store.Results(ctx, id)
	if err != nil {
		return err
	}
	label := fmt.Sprintf("%s, %s, %d vCPU", sensitiveExperiment, cfg.Workload.Duration, cfg.VM.CPUs)
	for _, side := range []string{"a", "b"} {
		cv := map[string]float64{}
		for _, m := range noise.Analyze(cellsOf(rs, side)) {
			cv[m.Name] = m.CV
		}
		for _, name := range sensitivityMetrics {
			c, ok := cv[name]
			if !ok || math.IsNaN(c) {
				figure(fmt.Sprintf("CV between boots, %s (%s)", name, side), "n/a")
				continue
			}
			figure(fmt.Sprintf("CV between boots, %s (%s, goal <= 0.03)", name, side), strconv.FormatFloat(c, 'f', 3, 64))
			figure(fmt.Sprintf("  smallest change seen at %d boots, %s", boots, name), fmt.Sprintf("%.0f%%", noise.MDE(c, boots)))
		}
		// The values behind the CVs, boot by boot, with the hold
		// counts that explain a lock-hold tail's jumps.
		for _, name := range append(sensitivityMetrics, "rstat_lock_holds", "rstat_lock_holds_readers") {
			detail(fmt.Sprintf("%s per boot (%s): %s", name, side, perBoot(cellsOf(rs, side), name)))
		}
	}
	d, err := compare.Compare(rs, "a", judging.Options(cfg, 0.05, judging.OwnWorkload))
	if err != nil {
		return err
	}
	verdict := "no significant change (goal)"
	if regs := append(d.Regressions(), d.Improvements()...); len(regs) > 0 {
		verdict = fmt.Sprintf("%d significant change(s): %v", len(regs), regs)
	}
	figure(fmt.Sprintf("null comparison, %s, %d+%d", label, boots, boots), verdict)
	return nil
}

// sameKernelTwice is sel's baseline measured as two variants, a (the
// baseline) and b: the same patches, the same kernel (the cache key is
// the content, so it is built once).
func sameKernelTwice(sel *variants.Selection) (*variants.Selection, error) {
	base := sel.Variant(sel.Family.Baseline)
	if base == nil {
		return nil, fmt.Errorf("%s measures no baseline variant %q", sensitiveExperiment, sel.Family.Baseline)
	}
	a, b := *base, *base
	a.Name, b.Name = "a", "b"
	fam := *sel.Family
	fam.Baseline = "a"
	fam.Variants = map[string]*patches.Variant{"a": &a, "b": &b}
	return &variants.Selection{Family: &fam, Variants: []*patches.Variant{&a, &b}}, nil
}

// perBoot lists one metric's value in each ok cell, in cell order.
func perBoot(rs []*results.Result, metric string) string {
	var out []string
	for _, r := range rs {
		for _, m := range r.Metrics {
			if r.Status == results.StatusOK && m.Name == metric {
				out = append(out, strconv.FormatFloat(m.Value, 'g', 4, 64))
			}
		}
	}
	return strings.Join(out, " ")
}

func cellsOf(rs []*results.Result, variant string) []*results.Result {
	var out []*results.Result
	for _, r := range rs {
		if r.Variant == variant {
			out = append(out, r)
		}
	}
	return out
}

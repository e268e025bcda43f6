package main

import (
	"fmt"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/compare"
)

// judgeOptions are the comparison options of an experiment at alpha: its
// primary metrics (or its workload's), noise floors, known selftest
// failures, and whether it only gates.
//
// With no primary_metrics, the default is every workload's primary
// metric: a stored run compared under another configuration (diff 12
// without -c) is still judged by its own workload's metric, the only one
// of them its results have.
func judgeOptions(cfg *config.Config, alpha float64) compare.Options {
	o := compare.Options{Alpha: alpha, NoiseFloorPct: cfg.NoiseFloorPct, Primary: cfg.PrimaryMetrics,
		GateOnly: cfg.GateOnly, KnownFailures: selftests.KnownFailures()}
	if len(cfg.PrimaryMetrics) == 0 {
		o.DefaultPrimary = config.AnyWorkloadPrimary()
	}
	return o
}

// checkJudgeable refuses, before anything is built, an experiment whose
// repetitions cannot reach alpha (split over looks) on its primary
// metrics, every candidate's judged together: its verdict could only be
// "unjudged".
func checkJudgeable(cfg *config.Config, sel *variants.Selection, alpha float64, looks int) error {
	if err := compare.CheckAlpha("--alpha", alpha); err != nil {
		return err
	}
	candidates := len(sel.Variants) - 1
	if cfg.GateOnly || candidates < 1 {
		return nil
	}
	level := alpha / float64(max(looks, 1))
	if err := compare.CheckReps(cfg.Repetitions, candidates, len(cfg.JudgedPrimary()), level); err != nil {
		return fmt.Errorf("experiment %s: %w; --gate-only (gate_only: true) runs it judging only failures, kernel reports and selftests", cfg.Experiment, err)
	}
	return nil
}

// Package judging builds the comparison options (compare.Options) that an
// experiment's runs are judged with, from its configuration: the one
// place that maps the configuration's judging keys (primary_metrics,
// noise_floor_pct, gate_only) and the known selftest failures onto a
// comparison, so that run, diff, seeds, the nightly and the bench judge
// alike.
package judging

import (
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/results/compare"
)

// DefaultPrimary says which primary metrics judge an experiment that
// names none (primary_metrics empty). The commands differ on purpose.
type DefaultPrimary int

const (
	// AnyWorkload: every workload's primary metric. A stored run compared
	// under another configuration (diff 12 without -c) is still judged by
	// its own workload's metric, the only one of them its results have.
	AnyWorkload DefaultPrimary = iota
	// OwnWorkload: the configured workload's own primary metric, none for
	// a gate-only experiment (config.DefaultPrimaryMetrics). The nightly
	// judges tonight's run of the experiment it has just loaded, so the
	// configuration is the run's.
	OwnWorkload
)

// Options are the comparison options of experiment cfg at alpha: its
// primary metrics (or dflt's), noise floors, known selftest failures and
// whether it only gates.
func Options(cfg *config.Config, alpha float64, dflt DefaultPrimary) compare.Options {
	o := compare.Options{Alpha: alpha, NoiseFloorPct: cfg.NoiseFloorPct, Primary: cfg.PrimaryMetrics, Gating: cfg.GatingMetrics,
		GateOnly: cfg.GateOnly, KnownFailures: selftests.KnownFailures(), RuleOut: cfg.RuleOut, LoadBound: cfg.LoadBound}
	switch dflt {
	case OwnWorkload:
		o.DefaultPrimary = cfg.DefaultPrimaryMetrics()
	case AnyWorkload:
		if len(cfg.PrimaryMetrics) == 0 {
			o.DefaultPrimary = workload.AnyPrimary()
		}
	}
	return o
}

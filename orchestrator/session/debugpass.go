package session

// The correctness gate's debug pass of an experiment: the same variants built with lock and atomic-context
// checking (the debug fragments, verified after olddefconfig like every
// fragment and cached like any build), one boot each through a short
// workload and the selftests. The pass is an ordinary run of the pipeline
// under its own experiment name; its diff judges what a debug kernel can
// say (failures, kernel reports such as lockdep splats and "sleeping
// function called from invalid context", selftests), since one boot of a
// kernel slowed by its checks measures nothing.

import (
	"slices"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
)

// DebugPrefix names the debug pass's runs: an experiment of their own, so no
// nightly or diff takes one for a measured run.
const DebugPrefix = "debug:"

// DebugConfig is the debug pass's configuration for the experiment cfg.
func DebugConfig(cfg *config.Config) *config.Config {
	d := *cfg
	d.Experiment = DebugPrefix + cfg.Experiment
	d.Kernel.Fragments = append(slices.Clone(cfg.Kernel.Fragments), cfg.Debug.Fragments...)
	d.Repetitions = 1
	d.Order, d.Seed = "fixed", 0
	d.Workload.Duration = cfg.Debug.Duration
	d.Selftests.Repetitions = min(cfg.Selftests.Repetitions, 1)
	// Nothing here is a measurement: no metric is primary or floored.
	d.PrimaryMetrics, d.NoiseFloorPct = nil, nil
	// A kernel proving every lock boots slower.
	d.VM.BootTimeout = max(cfg.VM.BootTimeout, config.Duration(3*time.Minute))
	d.Debug.Pass = "off"
	// The gate's one boot per variant, at vm.cpus: the debug kernels'
	// figures are never compared, so a sweep of them would only cost.
	d.VM.CPUsSweep = nil
	return &d
}

// DebugEnabled says whether experiment cfg of family fam gets a debug
// pass: debug.pass on, or auto (with auto set: kregress run) for a family
// whose candidates change locking. Without auto (nightly, seeds, the
// bench) only an explicit on runs it: those run many experiments, and
// a debug kernel per variant is a cold build each that they did not
// budget before the pass was theirs too.
func DebugEnabled(cfg *config.Config, fam *patches.Family, auto bool) bool {
	switch cfg.Debug.Pass {
	case "on":
		return true
	case "off":
		return false
	}
	return auto && fam != nil && fam.ChangesLocking
}

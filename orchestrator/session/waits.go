package session

import (
	"fmt"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/variants"
)

// Seeds are the built-in experiments that reproduce the seeds' claims:
// what `kregress seeds` runs and a nightly measures by default.
var Seeds = []string{"rstat-relock", "rstat-every-n", "rstat-every-n-64", "rstat-single-reader", "pcpu-execve", "cpuset-attach", "cpuset-attach-sporadic", "lru-drain"}

// WaitsForCells refuses (a usage error) an executor that would not wait
// for the cells, for command, which judges their results (nightly,
// bisect, seeds, noise).
func WaitsForCells(command string, cfg *config.Config) error {
	kind, err := config.ExecutorOf(cfg)
	if err != nil {
		return usage.Wrap(err)
	}
	switch {
	case kind.Info().NoWait != "":
		return usage.Wrap(fmt.Errorf("%s judges the cells' results, and the %s executor %s (use executor %s)",
			command, kind.Info().Name, kind.Info().NoWait, flagkit.OrList(config.WaitingKinds())))
	case cfg.Executor.Detach:
		return usage.Wrap(fmt.Errorf("%s judges the cells' results: executor.detach is for run", command))
	}
	return nil
}

// CheckSeeds refuses, before the first one builds, a set of experiments
// (each resolved by load) of which one is not judgeable at its
// repetitions (CheckJudgeable at alpha 0.05).
func CheckSeeds(names []string, load func(name string) (*config.Config, error)) error {
	for _, name := range names {
		cfg, err := load(name)
		if err != nil {
			return err
		}
		sel, err := variants.Resolve(cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := CheckJudgeable(cfg, sel, judging.Looks{Alpha: 0.05}); err != nil {
			return usage.Wrap(err)
		}
	}
	return nil
}

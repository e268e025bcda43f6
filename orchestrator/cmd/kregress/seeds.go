package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
)

// seedsSet is every built-in experiment that reproduces a seed's claim.
var seedsSet = []string{"rstat-relock", "rstat-every-n", "rstat-every-n-64", "rstat-single-reader", "pcpu-execve", "cpuset-attach", "cpuset-attach-sporadic", "lru-drain"}

func newSeeds() *cobra.Command {
	cmd := &cobra.Command{
		Use: "seeds",
		Example: `  kregress seeds
  kregress seeds --repetitions 8 --executor.kind slurm   # with executor.shared_dir set`,
		Short: "run every seed's built-in experiment in turn and print each diff",
		Long: "seeds runs, one after the other, the built-in experiments that reproduce the\n" +
			"seeds' claims: " + fmt.Sprint(seedsSet) + ".\nEach is stored as its own run; " +
			"`kregress results list` shows them. Flags such as --repetitions apply to all.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			rep := reporter()
			// Every experiment of the set must be judgeable at these
			// repetitions before the first one builds.
			for _, name := range seedsSet {
				cfg, _, err := config.Load(name, cmd.Flags())
				if err != nil {
					return err
				}
				sel, err := variants.Resolve(cfg)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if err := checkJudgeable(cfg, sel, 0.05, 1); err != nil {
					return usageError{err}
				}
			}
			for _, name := range seedsSet {
				cfg, _, err := config.Load(name, cmd.Flags())
				if err != nil {
					return err
				}
				if err := waitsForCells(cmd, cfg); err != nil {
					return err
				}
				rep("=== seeds: experiment %s", name)
				sel, err := variants.Resolve(cfg)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				store, err := openStore(ctx, cfg.StoreSpec())
				if err != nil {
					return err
				}
				id, _, err := pipeline.RunExperiment(ctx, cfg, sel, store, rep)
				if err == nil {
					fmt.Printf("\n=== %s: run %d\n", name, id)
					_, err = diffOneRun(ctx, store, id, judgeOptions(cfg, 0.05), "table", os.Stdout)
				}
				store.Close()
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
			return nil
		},
	}
	// Every key applies to each experiment of the set (--repetitions
	// too); experiment and family are each experiment's own.
	addConfigFlags(cmd, "executor.detach", "experiment", "family", "variants")
	addExecutorFlags(cmd, false)
	return cmd
}

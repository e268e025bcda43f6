package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
)

func newSeeds() *cobra.Command {
	cmd := &cobra.Command{
		Use: "seeds",
		Example: `  kregress seeds
  kregress seeds --repetitions 8 --executor.kind slurm   # with executor.shared_dir set`,
		Short: "run every seed's built-in experiment in turn and print each diff",
		Long: "seeds runs, one after the other, the built-in experiments that reproduce the\n" +
			"seeds' claims: " + fmt.Sprint(session.Seeds) + ".\nEach is stored as its own run; " +
			"`kregress results list` shows them. Flags such as --repetitions apply to all.",
		RunE: func(cmd *cobra.Command, _ []string) error { return runSeeds(cmd) },
	}
	// Every key applies to each experiment of the set (--repetitions
	// too); experiment and family are each experiment's own.
	addConfigFlags(cmd, "executor.detach", "experiment", "family", "variants")
	addExecutorFlags(cmd, false)
	return cmd
}

// runSeeds runs every experiment of session.Seeds through a session (the
// debug pass too when debug.pass is on) and prints each diff.
func runSeeds(cmd *cobra.Command) error {
	ctx, cancel := signalContext()
	defer cancel()
	rep := reporter(cmd)
	// Every experiment of the set must be judgeable at these
	// repetitions before the first one builds.
	if err := session.CheckSeeds(session.Seeds, func(name string) (*config.Config, error) {
		cfg, _, err := config.Load(name, cmd.Flags())
		return cfg, err
	}); err != nil {
		return err
	}
	for _, name := range session.Seeds {
		rep("=== seeds: experiment %s", name)
		if err := runSeed(ctx, cmd, name, rep); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// runSeed runs one experiment of the seeds set into its store.
func runSeed(ctx context.Context, cmd *cobra.Command, name string, rep progress.Reporter) error {
	cfg, _, err := config.Load(name, cmd.Flags())
	if err != nil {
		return err
	}
	if err := waitsForCells(cmd, cfg); err != nil {
		return err
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return err
	}
	store, err := openStore(ctx, cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	sess := &session.Session{Store: store, Report: rep}
	id, _, err := sess.Measure(ctx, cfg, sel, 0)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "\n=== %s: run %d\n", name, id)
	opts := judging.Options(cfg, 0.05, judging.AnyWorkload)
	if _, err := diffOneRun(ctx, store, id, opts, out); err != nil {
		return err
	}
	if sess.DebugWanted(cfg, sel) {
		_, err = runDebugPass(ctx, out, sess, cfg, sel, opts)
	}
	return err
}

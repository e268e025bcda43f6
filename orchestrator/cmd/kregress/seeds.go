package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/session"
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
	seeds := &session.SeedsRun{Load: config.Loader(cmd.Flags()), Open: openStore, Report: reporter(cmd), Out: session.Output{W: cmd.OutOrStdout(), Diff: diffOneRun}}
	return seeds.Run(ctx)
}

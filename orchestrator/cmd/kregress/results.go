package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/nightly"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/export"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/runlist"
	"github.com/kregress/kregress/results/store"
)

func newResults() *cobra.Command {
	cmd := &cobra.Command{
		Use: "results",
		Example: `  kregress results list --experiment rstat-relock
  kregress results show 12
  kregress results export 12 -f benchfmt | benchstat -col /variant /dev/stdin`,
		Short: "list, prune, export and import stored runs",
		Long: `results manages the store (SQLite file or PostgreSQL, see --store):

  results list [--experiment E] [--family F] [--status S] [--limit N]
  results show RUN [--config]
  results prune (--keep N | --older-than 720h | RUN...) [--dry-run]
  results export RUN [-o FILE] [--format json|benchfmt]
  results import FILE...
  results migrate
  results mark-interrupted RUN

Runs whose kregress process died (kill -9) are marked interrupted whenever
a command that writes opens the store on the same host; their completed
cells are kept. list, show and export only read: they open the store
read-only (no migration, nothing written, so a read-only store works) and
list such a run as "running (process gone)". A run started on another
host is listed as "running on HOST" with its pid and start: no process
here can check it; when you know it is gone, results mark-interrupted RUN
marks it, and run --resume RUN finishes it.`,
	}
	cmd.AddCommand(newResultsList(), newResultsShow(), newResultsPrune(), newResultsExport(), newResultsImport(), newResultsMigrate(), newResultsMarkInterrupted())
	return cmd
}

// newRuns is the short form of `results list`.
func newRuns() *cobra.Command {
	c := newResultsList()
	c.Use = "runs"
	c.Short = "list stored runs, newest first (same as `results list`)"
	c.Example = `  kregress runs
  kregress runs --family rstat --limit 5
  kregress runs --status interrupted`
	return c
}

func newResultsList() *cobra.Command {
	var f results.Filter
	var status string
	cmd := &cobra.Command{
		Use: "list",
		Example: `  kregress results list
  kregress results list --experiment rstat-relock --status complete
  kregress results list --family cpuset --limit 0     # every run of the family`,
		Short: "list stored runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if f.Status, err = runlist.ParseStatus(status); err != nil {
				return err
			}
			_, store, err := loadReadOnly(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			rows, err := runlist.List(cmd.Context(), store, f, thisHost(), processAlive)
			if err != nil {
				return err
			}
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			return format.WriteRunList(cmd.OutOrStdout(), rows)
		},
	}
	cmd.Flags().StringVar(&f.Experiment, "experiment", "", "only this experiment")
	cmd.Flags().StringVar(&f.Family, "family", "", "only this family")
	cmd.Flags().StringVar(&status, "status", "", "only runs with this status (running, complete, interrupted, failed)")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "how many runs (0: all)")
	jsonFlag(cmd)
	return cmd
}

func newResultsPrune() *cobra.Command {
	var keep int
	var olderThan time.Duration
	var dryRun, force bool
	cmd := &cobra.Command{
		Use: "prune (--keep N | --older-than DURATION | RUN...)",
		Example: `  kregress results prune --older-than 720h --dry-run
  kregress results prune --keep 50       # nightly baselines are kept unless --force`,
		Short: "delete runs (and their artifacts) from the store",
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := nightly.NewPruneSelection(args, parseRunID, keep, olderThan, time.Now())
			if err != nil {
				return err
			}
			cfg, store, err := loadWithStore(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			victims, err := nightly.PruneCandidates(cmd.Context(), store, sel)
			if err != nil {
				return err
			}
			return nightly.Prune(cmd.Context(), store, victims, cfg.ArtifactsDir(), force, dryRun, func(r *results.Run, did nightly.PruneAction) {
				fmt.Fprintln(cmd.OutOrStdout(), did.Line(r))
			})
		},
	}
	cmd.Flags().IntVar(&keep, "keep", 0, "keep the newest N runs, delete the rest")
	cmd.Flags().DurationVar(&olderThan, "older-than", 0, "delete runs started longer ago than this (e.g. 720h)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only say what would be deleted")
	cmd.Flags().BoolVar(&force, "force", false, "delete baselines too (runs marked good or accepted that a later nightly would compare with)")
	return cmd
}

func newResultsExport() *cobra.Command {
	var out *outputFlags
	cmd := &cobra.Command{
		Use: "export RUN",
		Example: `  kregress results export 12 -o run12.json
  kregress results export 12 -f benchfmt > run12.txt && benchstat -col /variant run12.txt
  kregress results export 12 -o json=run12.json -o benchfmt=run12.txt`,
		Short: "write a run with all its results to one file (json), or its metrics in Go benchmark format (benchfmt, for benchstat)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			stdout, files, err := out.resolve()
			if err != nil {
				return err
			}
			store, run, rs, err := loadRunArg(cmd, args[0])
			if err != nil {
				return err
			}
			defer store.Close()
			render := func(f string, w io.Writer) error { return export.WriteFormat(w, f, run, rs) }
			if stdout != "" {
				if err := render(stdout, cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			return writeOutputs(cmd.ErrOrStderr(), files, render)
		},
	}
	out = addOutputFlags(cmd, export.Formats, export.Formats)
	return cmd
}

func newResultsImport() *cobra.Command {
	return &cobra.Command{
		Use:     "import FILE...",
		Example: `  kregress results import run12.json --store postgres://team@db/kregress`,
		Short:   "add exported runs to the store (as new runs)",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			store, err := openStore(cmd.Context(), cfg.StoreSpec()) // importing may create the store
			if err != nil {
				return err
			}
			defer store.Close()
			return export.ImportAll(cmd.Context(), store, args, cmd.OutOrStdout())
		},
	}
}

func newResultsMigrate() *cobra.Command {
	return &cobra.Command{
		Use:     "migrate",
		Example: `  kregress results migrate --store /shared/kregress.db`,
		Short:   "upgrade an existing store's schema to this kregress's (read-only commands never migrate)",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, opened, err := loadWithStore(cmd)
			if err != nil {
				return err
			}
			defer opened.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "%s: schema version %d\n", opened.Where(), store.SchemaVersion)
			return nil
		},
	}
}

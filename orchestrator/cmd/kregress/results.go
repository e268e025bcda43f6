package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
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
		Short: "list, show, prune, export and import stored runs",
		Long: `results manages the store (SQLite file or PostgreSQL, see --store):

  results list [--experiment E] [--family F] [--status S] [--limit N]
  results show RUN [--config]
  results prune (--keep N | --older-than 30d | RUN...) [--dry-run]
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
	return listingRuns(&cobra.Command{
		Use:   "runs",
		Short: "list stored runs, newest first (same as `results list`)",
		Example: `  kregress runs
  kregress runs --family rstat --limit 5
  kregress runs --status interrupted`,
	})
}

func newResultsList() *cobra.Command {
	return listingRuns(&cobra.Command{
		Use: "list",
		Example: `  kregress results list
  kregress results list --experiment rstat-relock --status complete
  kregress results list --family cpuset --limit 0     # every run of the family`,
		Short: "list stored runs, newest first",
	})
}

// noStoreYet says that cfg's store is the default one (results_dir's
// kregress.db: no --store, KREGRESS_STORE or store key named it) and
// nothing has been run into it yet: a fresh host, whose list of runs is
// empty rather than a mistake. A store the user named stays refused when
// absent (store.MustExist): there a missing file is most likely a typo.
func noStoreYet(cfg *config.Config) bool {
	if cfg.Store != "" {
		return false
	}
	_, err := os.Stat(cfg.StoreSpec())
	return errors.Is(err, fs.ErrNotExist)
}

// listingRuns makes cmd list stored runs (results list and runs, its
// short form): its filter flags, --json and what it runs.
func listingRuns(cmd *cobra.Command) *cobra.Command {
	var f results.Filter
	var status string
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var err error
		if f.Status, err = runlist.ParseStatus(status); err != nil {
			return err
		}
		list := func(rows []runlist.Row) error {
			return printJSONOr(cmd, rows, func(w io.Writer) error { return format.WriteRunList(w, rows) })
		}
		cfg, err := load(cmd)
		if err != nil {
			return err
		}
		if noStoreYet(cfg) {
			return list([]runlist.Row{})
		}
		return store.With(cmd.Context(), cfg.StoreSpec(), store.ReadOnly, os.Stderr, func(s results.Store) error {
			rows, err := runlist.List(cmd.Context(), s, f, runlist.Here())
			if err != nil {
				return err
			}
			return list(rows)
		})
	}
	cmd.Flags().StringVar(&f.Experiment, "experiment", "", "only this experiment")
	cmd.Flags().StringVar(&f.Family, "family", "", "only this family")
	cmd.Flags().StringVar(&status, "status", "", "only runs with this status (running, complete, interrupted, failed)")
	cmd.Flags().IntVar(&f.Limit, "limit", 20, "how many runs (0: all)")
	jsonFlag(cmd)
	return cmd
}

func newResultsPrune() *cobra.Command {
	var q nightly.PruneRequest
	cmd := &cobra.Command{
		Use: "prune (--keep N | --older-than DURATION | RUN...)",
		Example: `  kregress results prune --older-than 30d --dry-run
  kregress results prune --keep 50       # nightly baselines are kept unless --force`,
		Short: "delete runs (and their artifacts) from the store",
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := q.Selection(args, time.Now())
			if err != nil {
				return err
			}
			return withStore(cmd, q.Access(), func(cfg *config.Config, s results.Store) error {
				return q.Run(cmd.Context(), s, sel, cfg.ArtifactsDir(), runlist.Here(), cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().IntVar(&q.Keep, "keep", 0, "keep the newest N runs, delete the rest")
	flagkit.DurationVar(cmd.Flags(), &q.OlderThan, "older-than", 0, "delete runs started longer ago than this (e.g. 30d, 720h)")
	cmd.Flags().BoolVar(&q.DryRun, "dry-run", false, "only say what would be deleted")
	cmd.Flags().BoolVar(&q.Force, "force", false, "delete baselines too (runs marked good or accepted that a later nightly would compare with)")
	return cmd
}

func newResultsExport() *cobra.Command {
	cmd := &cobra.Command{
		Use: "export RUN",
		Example: `  kregress results export 12 -o run12.json
  kregress results export 12 -f benchfmt > run12.txt && benchstat -col /variant run12.txt
  kregress results export 12 -o json=run12.json -o benchfmt=run12.txt`,
		Short: "write a run with all its results to one file (json), or its metrics in Go benchmark format (benchfmt, for benchstat)",
		Args:  cobra.ExactArgs(1),
	}
	out := addOutputFlags(cmd, export.Formats, export.Formats)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		stdout, files, err := out.Resolve()
		if err != nil {
			return err
		}
		return withRun(cmd, args[0], func(_ results.Store, run *results.Run, rs []*results.Result) error {
			return emit(cmd, stdout, files, func(f string, w io.Writer) error { return export.WriteFormat(w, f, run, rs) })
		})
	}
	return cmd
}

func newResultsImport() *cobra.Command {
	return &cobra.Command{
		Use:     "import FILE...",
		Example: `  kregress results import run12.json --store postgres://team@db/kregress`,
		Short:   "add exported runs to the store (as new runs)",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// Importing may create the store: only once every file
			// is known to be importable.
			read, err := export.ReadFiles(args)
			if err != nil {
				return err
			}
			return withStore(cmd, store.Recording, func(_ *config.Config, store results.Store) error {
				return export.ImportAll(cmd.Context(), store, read, cmd.OutOrStdout())
			})
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
			return withStore(cmd, store.Changing, func(_ *config.Config, opened results.Store) error {
				return store.WriteSchemaVersion(cmd.OutOrStdout(), opened)
			})
		},
	}
}

func newResultsShow() *cobra.Command {
	var printConfig bool
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "what a run measured: each variant's source, commit, patches (subject, author, Message-Id), kernel and cells, and a command that reproduces it",
		Example: `  kregress results show 12
  kregress results show 12 --config > run12.yaml && kregress run -c run12.yaml   # run it again`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withRun(cmd, args[0], func(opened results.Store, run *results.Run, rs []*results.Result) error {
				switch {
				case wantJSON(cmd):
					return export.Write(cmd.OutOrStdout(), run, rs)
				case printConfig:
					return store.WriteReproducibleConfig(cmd.OutOrStdout(), cmd.ErrOrStderr(), run)
				}
				format.WriteRunView(cmd.OutOrStdout(), runlist.Here().View(cmd.Context(), opened, run, rs))
				return nil
			})
		},
	}
	jsonFlag(cmd)
	cmd.Flags().Lookup("json").Usage = "print the run and every cell's result as JSON (-f json): the document results export writes (and results import reads)"
	cmd.Flags().BoolVar(&printConfig, "config", false, "print only the run's resolved configuration (refs pinned to commits, patch paths absolute): `kregress run -c` of it reproduces the run")
	return cmd
}

// withRun reads the run a RUN argument names, with its results
// (runlist.Get), from the store opened read-only, and runs fn with them.
func withRun(cmd *cobra.Command, arg string, fn func(s results.Store, run *results.Run, rs []*results.Result) error) error {
	id, err := runlist.ParseID(arg)
	if err != nil {
		return err
	}
	return withStore(cmd, store.ReadOnly, func(_ *config.Config, s results.Store) error {
		run, rs, err := runlist.Get(cmd.Context(), s, id)
		if err != nil {
			return err
		}
		return fn(s, run, rs)
	})
}

func newResultsMarkInterrupted() *cobra.Command {
	return &cobra.Command{
		Use:   "mark-interrupted RUN",
		Short: "mark a run interrupted whose kregress process, on another host, is gone",
		Long: `mark-interrupted marks a run that the store says is running as interrupted,
keeping its completed cells; kregress run --resume RUN then finishes it.

A run started on this host whose process is gone is marked by the next
writing command by itself. One started on another host cannot be checked
from here (results list shows "running on HOST" with its pid and start):
when you know that process is gone, mark it with this command. A run whose
process is alive on this host is refused: stop it with Ctrl-C or kill.`,
		Example: `  kregress results mark-interrupted 12 && kregress run -c my.yaml --resume 12`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := runlist.ParseID(args[0])
			if err != nil {
				return err
			}
			return withStore(cmd, store.Changing, func(_ *config.Config, s results.Store) error {
				return runlist.MarkInterrupted(cmd.Context(), s, id, runlist.Here(), time.Now(), cmd.OutOrStdout())
			})
		},
	}
}

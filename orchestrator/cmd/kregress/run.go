package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"

	// Each registers its executor.kind (config.RegisterExecutor): the
	// one line an executor adds outside its package.
	_ "github.com/kregress/kregress/orchestrator/executor/kubernetes"
	_ "github.com/kregress/kregress/orchestrator/executor/slurm"
)

func newRun() *cobra.Command {
	var req session.Request
	cmd := &cobra.Command{
		Use:   "run",
		Args:  runArgs, // run foo started a real run, ignoring foo
		Short: "build, boot and measure every variant, store the runs, print the diff",
		Long: `run builds each variant's kernel (cached by content: the same source, patches,
config and compiler never compile twice), builds the guest image, chooses the
accelerator, then boots the variants interleaved (A B A B ...) for the given
repetitions. Every cell is stored as it ends, with its status (` + flagkit.OrList(results.StatusNames(results.Statuses)) + `);
Ctrl-C keeps everything completed and marks the run interrupted.

Quick mode (--patch) measures your own change: the configured base kernel
("base", the baseline) against base + your series ("patched"), with the
configured workload (or --workload.name). Patches apply exactly (git apply
semantics: new, deleted and renamed files, mode changes) unless --kernel.fuzz;
a hunk that does not apply is named with its file, and nothing is built.

An experiment file (-c) can define its own families with variants that
name patches (relative to the file), a ref of kernel.git_tree, cmdline and
a baseline (docs/configuration.md). --dry-run shows the resolved variants, their
patches and which kernels would be built; it builds and boots nothing,
but applies every patch to the source, so the first one unpacks the
source into the cache (1.7 GB for Debian's tarball).

More boots where unsure: after the planned repetitions, a metric that is
too-few (too few boots for its family), seen to change without being
judged, or not significant with q in the grey zone gets another round of
--repetitions, into the same run, up to --extra-rounds rounds; alpha is split
over the looks (alpha / looks each), so a null comparison is flagged at most
alpha of the time however many looks it takes. --looks.max-minutes and
--looks.max-boots bound the run: a round that would pass them is not started
(alpha stays split over the planned looks). --resume RUN --repetitions N
extends a finished run to N repetitions per variant.`,
		Example: `  kregress run                                   # the built-in default experiment
  kregress run --patch 0001-my-fix.patch         # base vs base + my patch
  kregress run --patch series.mbox --workload.name execve --repetitions 8
  kregress run --patch ./outgoing/ --dry-run     # what would be built, nothing run
  kregress run -c my-branch.yaml                 # variants from git refs (see README)
  kregress run --fail-on-regression              # exit 3 on a significant regression (CI)
  kregress run -c my.yaml --resume 12            # finish run 12 after a Ctrl-C
  kregress run --resume 12 --repetitions 8       # extend run 12 to 8 boots per variant
  kregress run --extra-rounds 0                  # one look: never measure again
  kregress run --looks.max-minutes 45            # no further round past 45 minutes
  kregress run --vm.accel tcg --vm.memory-mb 2048 --kernel.jobs 3`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inSession(cmd, func(ctx context.Context, cfg *config.Config, env session.Env) error {
				if req.Resume > 0 {
					if err := storedRun(ctx, cfg.StoreSpec(), req.Resume); err != nil {
						return err
					}
				}
				return req.Run(ctx, cfg, env)
			})
		},
	}
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addExecutorFlags(cmd, true)
	addBenchmarkHostFlags(cmd)
	cmd.Flags().BoolVar(&req.DryRun, "dry-run", false, "resolve variants and apply the patches (unpacking the source the first time), show what would be built; build and boot nothing")
	flagkit.IDVar(cmd.Flags(), &req.Resume, "resume", "run id", "finish interrupted run `RUN`, given the -c and flags it was started with: its kernels come from the cache and only its missing cells run, into the same run")
	cmd.Flags().BoolVar(&req.Gate, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, its selftest outcomes get worse, or the debug pass (debug.pass) flags it; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric had too few boots (too-few), a metric was seen to regress without proof, a metric's boots could not rule out the rule-out margin, or a timing metric's regression was not called because the sides ran at unlike host loads on the host's clock (load_bound) (for CI)")
	cmd.Flags().Float64Var(&req.Alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), split over the looks, in (0, 1)")
	cmd.Flags().IntVar(&req.ExtraRounds, "extra-rounds", 1, "at most this many more rounds of --repetitions, into the same run, while a metric is unsure (too-few, seen to change, or in the grey zone); 0: never")
	cmd.Flags().Float64Var(&req.GreyUpper, "grey-upper", 0.2, "q below this (and not significant) measures again; in (alpha, 1], 1: every metric that is not significant")
	return cmd
}

// storedRun refuses a run to resume that is not in the store spec names
// (no store, or no such run: usage errors naming it), reading it only:
// before anything is built, and without creating the store (a dry run
// too: it shows what resuming would do).
func storedRun(ctx context.Context, spec string, id int64) error {
	return store.With(ctx, spec, store.ReadOnly, nil, func(s results.Store) error {
		_, err := s.GetRun(ctx, id)
		return err
	})
}

// inSession runs fn, the body of a command that measures, with cmd's
// configuration (load, before anything else) under untilSignal.
func inSession(cmd *cobra.Command, fn func(ctx context.Context, cfg *config.Config, env session.Env) error) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	return untilSignal(cmd, func(ctx context.Context, env session.Env) error { return fn(ctx, cfg, env) })
}

// untilSignal runs fn with what a session needs of cmd (session.Env: the
// experiment resolved with --patch, the store opened for recording,
// progress on stderr, runs shown on stdout), in a context that Ctrl-C or
// SIGTERM cancels (signalContext).
func untilSignal(cmd *cobra.Command, fn func(ctx context.Context, env session.Env) error) error {
	ctx, cancel := signalContext()
	defer cancel()
	return fn(ctx, session.Env{Open: openRecording, Report: reporter(cmd), Out: session.Output{W: cmd.OutOrStdout()},
		Select: func(cfg *config.Config) (*variants.Selection, error) { return resolveSelection(cmd, cfg) }})
}

func newSeeds() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "seeds",
		Args:    cobra.NoArgs,
		Example: "  kregress seeds\n  kregress seeds --repetitions 8 " + config.HelpExample().Example,
		Short:   "run every seed's built-in experiment in turn and print each diff",
		Long: "seeds runs, one after the other, the built-in experiments that reproduce the\n" +
			"seeds' claims: " + fmt.Sprint(session.Seeds) + ".\nEach is stored as its own run; " +
			"`kregress results list` shows them. Flags such as --repetitions apply to all.",
		// Every experiment of session.Seeds through a session (the debug
		// pass too when debug.pass is on), each diff printed.
		RunE: func(cmd *cobra.Command, _ []string) error {
			return untilSignal(cmd, session.SeedsRun{Load: config.Loader(cmd.Flags())}.Run)
		},
	}
	// Every key applies to each experiment of the set (--repetitions
	// too); experiment and family are each experiment's own.
	addConfigFlags(cmd, "executor.detach", "experiment", "family", "variants")
	addExecutorFlags(cmd, false)
	return cmd
}

func newNoise() *cobra.Command {
	var req session.NoiseRun
	cmd := &cobra.Command{
		Use:   "noise",
		Short: "measure the instrument: boot one kernel N times, report each metric's spread and the smallest change it can see",
		Long: `noise boots one variant of the experiment (default: its baseline)
--repetitions times (default 8, not the experiment's) and prints, per judged metric: the coefficient of variation between
boots, within a boot (across the irqs-off sampling windows), the rank
correlation with the host's load average at each boot, and the minimum
detectable effect at 5, 8 and 16 boots per side (Mann-Whitney, alpha 0.05,
power 0.8). The run is stored as experiment "noise:<experiment>"; later
diffs of that experiment name the changes that lie below what this setup
can see.`,
		Example: `  kregress noise --repetitions 16
  kregress noise -c pcpu-execve --variant grouped   # another variant than the baseline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req.RepetitionsSet, req.JSON = cmd.Flags().Changed("repetitions"), wantJSON(cmd)
			return inSession(cmd, req.Run)
		},
	}
	cmd.Flags().StringVar(&req.Variant, "variant", "", "the variant to boot (default: the family's baseline)")
	addConfigFlags(cmd, "executor.detach")
	cmd.Flags().Lookup("repetitions").Usage = fmt.Sprintf("boots of the one kernel (default %d here, not the experiment's)", session.NoiseBoots)
	deprecatedAlias(cmd.Flags(), "boots", "repetitions")
	addExecutorFlags(cmd, false)
	addSourceFlags(cmd)
	jsonFlag(cmd)
	return cmd
}

func newCell() *cobra.Command {
	// The task's environment names the scheduler's task it is.
	task := pipeline.CellTask{Executor: pipeline.TaskLabel(os.Getenv)}
	// The help's example cluster is one an executor registered.
	ex := config.HelpExample()
	cmd := &cobra.Command{
		Use:   "cell --job FILE --index N",
		Args:  cobra.NoArgs,
		Short: "run one cell of a submitted run and store its result (what each " + ex.Task + " runs)",
		Long: `cell boots, measures and stores cell N (0-based) of the job file that a
cluster executor wrote into the shared directory. The store comes from
KREGRESS_STORE (the submitter passes it in the task's environment, never in
a file). SIGTERM (scancel, preemption, a time limit) stores the cell as
infra_error with what was measured so far. The last cell of a run to be
stored finishes the run, so a detached run completes on its own.

Exit codes: 0 the result was stored (whatever the cell's status); 1 it
could not be; 2 bad arguments.`,
		Example: "  kregress cell --job /shared/kregress/results/artifacts/run-12/" + ex.Name + "/job.json --index " + ex.TaskIndex,
		// One task of a cluster executor, reported on stderr.
		RunE: func(cmd *cobra.Command, _ []string) error {
			return inSession(cmd, func(ctx context.Context, cfg *config.Config, env session.Env) error {
				return task.Run(ctx, cfg.StoreSpec(), env.Report, cmd.ErrOrStderr())
			})
		},
	}
	cmd.Flags().StringVar(&task.Job, "job", "", "the job file (written by the submitting kregress)")
	cmd.Flags().IntVar(&task.Index, "index", -1, "the cell, 0-based (a "+ex.Task+" ID)")
	cmd.MarkFlagRequired("job")
	cmd.MarkFlagRequired("index")
	return cmd
}

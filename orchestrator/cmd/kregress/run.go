package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

func newRun() *cobra.Command {
	var failOnRegression bool
	var alpha float64
	var resume int64
	cmd := &cobra.Command{
		Use:   "run",
		Short: "build, boot and measure every variant, store the runs, print the diff",
		Long: `run builds each variant's kernel (cached by content: the same source, patches,
config and compiler never compile twice), builds the guest image, chooses the
accelerator, then boots the variants interleaved (A B A B ...) for the given
repetitions. Every cell is stored as it ends, with status ok, crashed,
timeout, boot_failed, agent_failed, bad_output or incomplete; Ctrl-C keeps
everything completed and marks the run interrupted.

Quick mode (--patch) measures your own change: the configured base kernel
("base", the baseline) against base + your series ("patched"), with the
configured workload (or --workload.name). Patches apply exactly (git apply
semantics: new, deleted and renamed files, mode changes) unless --kernel.fuzz;
a hunk that does not apply is named with its file, and nothing is built.

An experiment file (-c) can define its own families with variants that
name patches (relative to the file), a ref of kernel.git_tree, cmdline and
a baseline; see the README. --dry-run shows the resolved variants, their
patches and which kernels would be built, and builds nothing.`,
		Example: `  kregress run                                   # the built-in default experiment
  kregress run --patch 0001-my-fix.patch         # base vs base + my patch
  kregress run --patch series.mbox --workload.name execve --repetitions 8
  kregress run --patch ./outgoing/ --dry-run     # what would be built, nothing run
  kregress run -c my-branch.yaml                 # variants from git refs (see README)
  kregress run --fail-on-regression              # exit 3 on a significant regression (CI)
  kregress run -c my.yaml --resume 12            # finish run 12 after a Ctrl-C
  kregress run --vm.accel tcg --vm.memory-mb 2048 --kernel.jobs 3`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dry, _ := cmd.Flags().GetBool("dry-run")
			return runExperiment(cmd, runFlags{alpha: alpha, resume: resume, failOnRegression: failOnRegression, dryRun: dry})
		},
	}
	f := cmd.Flags()
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addExecutorFlags(cmd, true)
	f.Bool("dry-run", false, "resolve variants and patches, show what would be built, build and run nothing")
	f.Int64Var(&resume, "resume", 0, "finish interrupted run `RUN`, given the -c and flags it was started with: its kernels come from the cache and only its missing cells run, into the same run")
	f.BoolVar(&failOnRegression, "fail-on-regression", false, "exit 3 when a candidate fails (crash, timeout, boot failure) more often than the baseline, a metric regresses significantly, its kernel prints a report (WARNING, BUG, lockdep, stall) the baseline's does not, its selftest outcomes get worse, or the debug pass (debug.pass) flags it; else exit 1 when a candidate was unmeasured (every cell an infrastructure error); else exit 9 when a primary metric was unjudged (for CI)")
	f.Float64Var(&alpha, "alpha", 0.05, "false discovery rate over the metrics judged (Benjamini-Hochberg q of the Mann-Whitney U p-values), in (0, 1)")
	return cmd
}

// runFlags are run's own flags.
type runFlags struct {
	alpha            float64
	resume           int64
	failOnRegression bool
	dryRun           bool
}

// runExperiment is kregress run: the session's checks, the measured run
// (or its resume), its diff, the debug pass when enabled, and the exit
// code of the verdicts.
func runExperiment(cmd *cobra.Command, fl runFlags) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	if err := compare.CheckAlpha("--alpha", fl.alpha); err != nil {
		return usage.Wrap(err)
	}
	if fl.resume < 0 {
		return usage.Wrap(fmt.Errorf("--resume %d is not a run id (see kregress results list)", fl.resume))
	}
	sel, err := resolveSelection(cmd, cfg)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	rep := reporter(cmd)
	sess := &session.Session{Report: rep, AutoDebug: true}
	// What needs no build is checked now; the trees' refusals (a primary
	// metric no tree can produce, a patch that does not apply: exit 2)
	// come from the run's preparation before anything is built, or from
	// Plans for a dry run. --workload.name and --patch have decided the
	// workload, and so its primary metrics, by now.
	if err := session.Check(cfg, sel, fl.alpha); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if fl.dryRun {
		plans, err := sess.Plans(ctx, cfg, sel)
		if err != nil {
			return err
		}
		return dryRun(ctx, out, sess, cfg, sel, plans)
	}
	store, err := openStore(ctx, cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	sess.Store = store
	runID, prep, err := sess.Measure(ctx, cfg, sel, fl.resume)
	if errors.Is(err, pipeline.ErrDetached) {
		fmt.Fprintf(out, "run %d submitted; its cells store themselves into %s as they end.\nFollow it with `kregress results show %d`; `kregress diff %d` once it is complete.\n", runID, store.Where(), runID, runID)
		return nil
	}
	if err != nil {
		if runID != 0 {
			return fmt.Errorf("run %d: %w (completed cells are stored; `kregress diff %d` compares them, the same command with --resume %d finishes the run)", runID, err, runID, runID)
		}
		return err
	}
	fmt.Fprintf(out, "\nrun %d stored in %s\n\n", runID, store.Where())
	// The preparation may have judged the workload's fallback primary
	// (cfg says so now): the options are taken after it.
	opts := judging.Options(cfg, fl.alpha, judging.AnyWorkload)
	if len(prep.Variants) == 1 {
		rs, err := store.Results(ctx, runID)
		if err != nil {
			return err
		}
		format.WriteSetSummary(out, prep.Variants[0].Name, compare.SummarizeSet(rs, compare.Options{Alpha: fl.alpha}))
		return nil
	}
	d, err := diffOneRun(ctx, store, runID, opts, out)
	if err != nil {
		return err
	}
	failing := len(d.Failing()) > 0
	if sess.DebugWanted(cfg, sel) {
		flagged, err := runDebugPass(ctx, out, sess, cfg, sel, opts)
		if err != nil {
			return err
		}
		failing = failing || flagged
	}
	if !fl.failOnRegression {
		return nil
	}
	return verdictExit(failing, d)
}

// verdictExit is --fail-on-regression's exit (compare.Judge): 3 when
// something failed (or the debug pass flagged it), else 1 when a
// candidate was unmeasured (the host's failure, named: see exitStatus),
// else 9 when a primary metric was unjudged.
func verdictExit(flagged bool, diffs ...*compare.Diff) error {
	v := compare.Judge(diffs...)
	if flagged {
		v = verdict.Regression
	}
	if v == verdict.Unmeasured {
		return compare.UnmeasuredErr(diffs...)
	}
	return exitWith(v)
}

// runDebugPass runs the correctness gate's debug pass (session.Debug)
// and prints its diff; it reports whether a candidate was flagged there.
func runDebugPass(ctx context.Context, out io.Writer, sess *session.Session, cfg *config.Config, sel *variants.Selection, opts compare.Options) (bool, error) {
	fmt.Fprintf(out, "\ndebug pass of the correctness gate: every variant built with %s, one boot each (%s workload)\n\n", strings.Join(cfg.Debug.Fragments, ", "), cfg.Debug.Duration)
	id, err := sess.Debug(ctx, cfg, sel)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(out, "\ndebug pass: run %d stored in %s\n\n", id, sess.Store.Where())
	d, err := diffOneRun(ctx, sess.Store, id, session.DebugOptions(opts), out)
	if err != nil {
		return false, err
	}
	return len(d.Failing()) > 0, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// bisectHelp is bisect's long help.
const bisectHelp = `bisect searches kernel.git_tree (--kernel.git-tree) between --good and --bad for
the first commit that changed --metric, measured with the experiment's
workload (-c; default rstat-relock's). With --series DIR|MBOX --base REF it
searches the prefixes of a patch series instead.

The endpoints are measured first, interleaved, look by look (--repetitions:
boots per point in each look, e.g. 4,4,8); if a
two-sided rank test stratified by look (at alpha / looks) never finds them
different the bisect stops ("does not reproduce", exit 7). The first
midpoint boots along in those looks. Once they have measured the
endpoints' change, each look of a commit boots its kernel interleaved with
one endpoint (good and bad in turn, 2 boots each), and the commit is
compared only with the endpoint boots of its own look, so a host that
drifts between looks cannot move a call. Those comparisons give each
commit a likelihood ratio "like bad" over "like good"; the search keeps
the likelihood of every candidate culprit (a noisy binary search), looks
next at the commit nearest even odds of being bad, and names a commit only
when its likelihood beats every candidate d commits away by
2^(d+1) / (0.65 alpha): a wrong culprit at most 0.65 alpha of the time for
a known change and spread, the rest of alpha paying for their estimation.
A commit different from both endpoints, or not settled after its last
look, counts as a skip; the printed confidence is 1 - alpha.

--crash bisects a failure instead: the bad endpoint is booted until it has
failed 4 times (its failure rate), a step is bad at its first failure and
good after enough clean boots that a kernel failing at that rate would
have failed in one (booting only the step, not the endpoints).

A commit that does not build, or whose kernel crashes in a metric bisect,
is skipped (git bisect run's 125); one whose bzImage equals a measured one
reuses its verdict without booting. Skips next to the culprit leave a range
(exit 8). --repetitions and --alpha are checked before anything builds: looks too
small for alpha are refused, naming the boots per look that would do.

Once a culprit is named it is confirmed by revert: the bad endpoint with
the culprit reverted is measured against both endpoints by the same step
decision; "confirmed" only when it is like good (--no-confirm skips it).
--variant V measures every commit with the experiment's variant V's
patches on top (as a nightly measured it). The culprit report (the
change with p, q, n and MDE; the culprit's subject, author, date and git
describe; the confirmation; boots; kernel config; reproduce commands) goes
to -o markdown=FILE (and $GITHUB_STEP_SUMMARY), json=FILE, junit=FILE and
mail=FILE (a mail body; kregress never sends mail), repeatable. A metric
bisect runs no selftest gate; --crash keeps it. See docs/bisect.md.

Every step is stored; Ctrl-C keeps them and --resume ID continues.
"kregress bisect list" lists the stored bisects.
"kregress bisect show ID" prints a bisect again, with a replayable
git bisect log.

Exit codes: 0 culprit named; 1 infrastructure failure; 2 usage (same or
reversed endpoints, unknown ref or metric); 7 does not reproduce; 8
inconclusive.`

func newBisect() *cobra.Command {
	var fl bisectFlags
	cmd := &cobra.Command{
		Use:   "bisect --good REF --bad REF --metric NAME",
		Short: "find the commit (or the patch of a series) that changed a metric",
		Long:  bisectHelp,
		Example: `  kregress bisect --kernel.git-tree ~/linux --good v6.12 --bad v6.13-rc1 --metric rstat_lock_hold_p99_us
  kregress bisect --series outgoing/ --base v6.12 --metric reads_per_sec -c rstat-every-n -o markdown=culprit.md
  kregress bisect --resume 3
  kregress bisect show 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBisect(cmd, &fl) },
	}
	// repetitions is bisect's own (boots per look, a list).
	addConfigFlags(cmd, "repetitions", "executor.detach")
	addExecutorFlags(cmd, false)
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	f := cmd.Flags()
	fl.out = addReportOutputs(cmd, true)
	f.StringVar(&fl.good, "good", "", "a ref where the metric is as it should be")
	f.StringVar(&fl.bad, "bad", "", "a later ref where it changed")
	f.StringVar(&fl.metric, "metric", "", "the metric to bisect (one the experiment's workload reports)")
	f.StringVar(&fl.series, "series", "", "bisect the prefixes of this patch series (a directory, mbox or quilt series) on --base")
	f.StringVar(&fl.base, "base", "", "with --series: the ref the series applies to")
	f.StringVar(&fl.repsText, "repetitions", defaultReps(), "boots of each point in each look of the endpoints and steps, comma separated: more looks only while undecided")
	deprecatedAlias(f, "reps", "repetitions")
	f.Float64Var(&fl.alpha, "alpha", 0.05, "chance of naming a wrong culprit, split over the steps; in (0, 1)")
	f.Int64Var(&fl.resume, "resume", 0, "continue the interrupted bisect with this id")
	f.StringVar(&fl.variant, "variant", "", "measure every commit with this variant of the experiment's family (its patches on top), as the nightly measured it")
	f.BoolVar(&fl.noConfirm, "no-confirm", false, "do not confirm the culprit by reverting it on the bad endpoint and measuring that")
	f.BoolVar(&fl.crash, "crash", false, "bisect a crash: bad means the kernel crashes, hangs or does not boot in any boot of a step, or fails a selftest the good endpoint never fails")
	cmd.AddCommand(newBisectStep(), newBisectList())
	var showOut *outputFlags
	show := &cobra.Command{
		Use:     "show ID",
		Example: `  kregress bisect show 3                 # a stored bisect: its steps and verdicts`,
		Short:   "print a stored bisect: its result, every step, and a git bisect log",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, files, err := showOut.resolve()
			if err != nil {
				return err
			}
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return usage.Wrap(fmt.Errorf("%q is not a bisect id", args[0]))
			}
			_, store, err := loadReadOnly(cmd)
			if err != nil {
				return err
			}
			defer store.Close()
			b, err := store.GetBisect(cmd.Context(), id)
			if err != nil {
				return err
			}
			spec, res, err := bisect.Load(b)
			if err != nil {
				return err
			}
			var runErr error
			if res != nil && !res.Reproduced && b.Status == results.RunComplete {
				runErr = bisect.ErrNotReproduced
			}
			if wantJSON(cmd) {
				doc := newBisectDoc(b, spec, res)
				// The report reads the culprit's commit from the git tree;
				// without the tree the stored bisect is still shown.
				if doc.Report, err = bisect.BuildReport(cmd.Context(), store, id, spec, res, runErr); err != nil {
					doc.ReportError = err.Error()
				}
				return writeJSON(cmd.OutOrStdout(), doc)
			}
			status := string(b.Status)
			if b.Status == results.RunRunning {
				status = "running, or interrupted if no kregress bisect is running now"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "status: %s (started %s)\n", status, b.StartedAt.Local().Format("2006-01-02 15:04"))
			format.WriteBisectSession(cmd.OutOrStdout(), bisect.Summarize(id, spec, res, runErr))
			if b.Status != results.RunComplete && runErr == nil && (res == nil || res.Culprit == "") {
				runErr = errors.New("not finished")
			}
			_, err = writeReports(cmd.Context(), cmd.ErrOrStderr(), files, store, id, spec, res, runErr, false)
			return err
		},
	}
	// show's -f json (--json) prints the bisect with the culprit report
	// inside; -o writes the report's formats to files.
	jsonFlag(show)
	showOut = addReportOutputs(show, false)
	cmd.AddCommand(show)
	return cmd
}

// bisectFlags are bisect's own flags.
type bisectFlags struct {
	good, bad, metric, series, base, repsText string
	variant                                   string
	alpha                                     float64
	resume                                    int64
	crash, noConfirm                          bool
	out                                       *outputFlags
}

// openStoreUntilSignal opens the store (openStore) in a context that
// Ctrl-C or SIGTERM cancels (signalContext), for a command that writes
// the store until it is interrupted; done closes the store, then cancels.
func openStoreUntilSignal(spec string) (ctx context.Context, store results.Store, done func(), err error) {
	ctx, cancel := signalContext()
	store, err = openStore(ctx, spec)
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return ctx, store, func() {
		store.Close()
		cancel()
	}, nil
}

// runBisect is kregress bisect: a new bisect from the flags, or a stored
// one resumed, its report printed and written, its end as the exit code.
func runBisect(cmd *cobra.Command, fl *bisectFlags) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	if err := waitsForCells(cmd, cfg); err != nil {
		return err
	}
	if fl.resume < 0 {
		return usage.Errorf("--resume %d is not a bisect id (see the id a bisect prints)", fl.resume)
	}
	reps, err := bisect.ParseReps(fl.repsText)
	if err != nil {
		return usage.Wrap(err)
	}
	// Before anything builds: an alpha outside (0, 1), or looks too
	// small for it, could only ever end "does not reproduce".
	if fl.resume == 0 {
		if err := bisect.CheckFlags(fl.alpha, reps, fl.crash); err != nil {
			return usage.Wrap(err)
		}
	}
	_, files, err := fl.out.resolve()
	if err != nil {
		return err
	}
	ctx, store, done, err := openStoreUntilSignal(cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer done()
	var spec *bisect.Spec
	if fl.resume != 0 {
		cfg, spec, err = session.ResumedBisectSpec(ctx, store, cfg, fl.resume, func(e string) (*config.Config, error) {
			c, _, err := config.Load(e, cmd.Flags())
			return c, err
		})
	} else {
		spec, err = session.NewBisectSpec(ctx, cfg, session.BisectRequest{Experiment: configFile, Good: fl.good, Bad: fl.bad, Series: fl.series, Base: fl.base,
			Metric: fl.metric, Variant: fl.variant, Alpha: fl.alpha, Reps: reps, Crash: fl.crash})
	}
	if err != nil {
		return err
	}
	rep := reporter(cmd)
	prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: store, Report: rep}
	speculate, err := bisect.SpeculationFor(cfg, runtime.NumCPU())
	if err != nil {
		return usage.Wrap(err)
	}
	sess := &bisect.Session{Store: store, Prober: prober, Report: rep, NoConfirm: fl.noConfirm, Speculate: speculate}
	var b *results.Bisect
	var res *bisect.Result
	if fl.resume != 0 {
		var s *bisect.Spec
		if b, s, res, err = sess.Resume(ctx, fl.resume); b != nil {
			spec = s
		}
	} else {
		b, res, err = sess.Start(ctx, spec)
	}
	var id int64
	if b != nil {
		id = b.ID
	}
	out := cmd.OutOrStdout()
	fmt.Fprintln(out)
	format.WriteBisectSession(out, bisect.Summarize(id, spec, res, err))
	if id != 0 {
		if _, rerr := writeReports(context.Background(), cmd.ErrOrStderr(), files, store, id, spec, res, err, true); rerr != nil {
			return fmt.Errorf("bisect %d: the culprit report: %w", id, rerr)
		}
	}
	return bisectExit(ctx, cmd.ErrOrStderr(), id, res, err)
}

// bisectExit maps how bisect id ended to its exit code.
func bisectExit(ctx context.Context, errw io.Writer, id int64, res *bisect.Result, err error) error {
	var ume *bisect.UnknownMetricError
	switch {
	case errors.As(err, &ume):
		return usage.Wrap(err)
	case errors.Is(err, bisect.ErrNotReproduced):
		return exitWith(verdict.NotReproduced)
	case ctx.Err() != nil:
		fmt.Fprintf(errw, "kregress: bisect %d interrupted; its steps are stored: kregress bisect --resume %d\n", id, id)
		return exitWith(verdict.Stopped)
	case err != nil:
		return fmt.Errorf("bisect %d: %w (steps so far are stored: kregress bisect --resume %d)", id, err, id)
	case res.Culprit == "":
		return exitWith(verdict.Inconclusive)
	}
	return nil
}

func defaultReps() string { return bisect.RepsString(bisect.DefaultReps) }

func newBisectStep() *cobra.Command {
	var good, bad, metric, repsText string
	var alpha float64
	cmd := &cobra.Command{
		Use:     "step --good REF --bad REF --metric NAME",
		Example: `  git bisect start BAD GOOD && git bisect run kregress bisect step --good GOOD --bad BAD --metric rstat_lock_hold_p99_us --kernel.git-tree .`,
		Short:   "one step for git bisect run: measure HEAD of the tree against both endpoints",
		Long: `step measures the commit checked out in --kernel.git-tree (kernel.git_tree) against
fresh boots of --good and --bad, as one step of kregress bisect does, and
exits as git bisect run expects: 0 like good, 1 like bad, 125 skip (does
not build, crashed, or undecided after every look), 128 on an
infrastructure failure (which stops git bisect run).

  git bisect start BAD GOOD
  git bisect run kregress bisect step --good GOOD --bad BAD --metric rstat_lock_hold_p99_us --kernel.git-tree .`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return exitCode(verdict.ExitStepAbort)
			}
			reps, err := bisect.ParseReps(repsText)
			if err != nil || metric == "" || good == "" || bad == "" || cfg.Kernel.GitTree == "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "kregress bisect step: give --good, --bad, --metric and --kernel.git-tree; --repetitions as %s\n", defaultReps())
				return exitCode(verdict.ExitStepAbort)
			}
			if err := bisect.CheckFlags(alpha, reps, false); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "kregress bisect step:", err)
				return exitCode(verdict.ExitStepAbort)
			}
			ctx, store, done, err := openStoreUntilSignal(cfg.StoreSpec())
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "kregress bisect step:", err)
				return exitCode(verdict.ExitStepAbort)
			}
			defer done()
			spec, err := bisect.CommitRange(ctx, cfg.Kernel.GitTree, good, bad)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "kregress bisect step:", err)
				return exitCode(verdict.ExitStepAbort)
			}
			head, err := bisect.HeadCommit(ctx, cfg.Kernel.GitTree)
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "kregress bisect step:", err)
				return exitCode(verdict.ExitStepAbort)
			}
			spec.Points[head] = bisect.Point{Ref: head}
			goodC, badC := spec.Names[0], spec.Names[len(spec.Names)-1]
			prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: metric, Store: store, Report: reporter(cmd)}
			step, err := bisect.StepOnce(ctx, prober, head, goodC, badC, bisect.Options{Alpha: alpha, Reps: reps, Range: len(spec.Names) - 1, Report: reporter(cmd)})
			if err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "kregress bisect step:", err)
				return exitCode(verdict.ExitStepAbort)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%.12s: %s (%s)\n", head, step.Verdict, step.Why)
			return exitWith(step.Verdict)
		},
	}
	addConfigFlags(cmd, "repetitions", "executor.detach")
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	f := cmd.Flags()
	f.StringVar(&good, "good", "", "the good endpoint")
	f.StringVar(&bad, "bad", "", "the bad endpoint")
	f.StringVar(&metric, "metric", "", "the metric")
	f.StringVar(&repsText, "repetitions", defaultReps(), "boots of each point in each look, comma separated")
	deprecatedAlias(f, "reps", "repetitions")
	f.Float64Var(&alpha, "alpha", 0.05, "chance of naming a wrong culprit over the whole bisect (this step gets its share); in (0, 1)")
	return cmd
}

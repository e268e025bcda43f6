package main

import (
	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

func newBisect() *cobra.Command {
	var run session.BisectRun
	cmd := &cobra.Command{
		Use:   "bisect --good REF --bad REF --metric NAME",
		Short: "find the commit (or the patch of a series) that changed a metric",
		Long: `bisect searches kernel.git_tree (--kernel.git-tree) between --good and --bad for
the first commit that changed --metric, measured with the experiment's
workload (-c; default rstat-relock's). With --series DIR|MBOX --base REF it
searches the prefixes of a patch series instead.

The endpoints are measured first, interleaved, look by look (--looks:
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
(exit 8). --looks and --alpha are checked before anything builds: looks too
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
inconclusive.`,
		Example: `  kregress bisect --kernel.git-tree ~/linux --good v6.12 --bad v6.13-rc1 --metric rstat_lock_hold_p99_us
  kregress bisect --kernel.git-tree ~/linux --series outgoing/ --base v6.12 --metric reads_per_sec -c rstat-every-n -o markdown=culprit.md
  kregress bisect --resume 3
  kregress bisect show 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runBisect(cmd, &run) },
	}
	// repetitions is bisect's own (boots per look, a list).
	addConfigFlags(cmd, "repetitions", "executor.detach")
	addExecutorFlags(cmd, false)
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	run.Reports = addReportOutputs(cmd, true)
	cmd.Flags().StringVar(&run.Request.Good, "good", "", "a ref where the metric is as it should be")
	cmd.Flags().StringVar(&run.Request.Bad, "bad", "", "a later ref where it changed")
	cmd.Flags().StringVar(&run.Request.Metric, "metric", "", "the metric to bisect (one the experiment's workload reports)")
	cmd.Flags().StringVar(&run.Request.Series, "series", "", "bisect the prefixes of this patch series (a directory, mbox or quilt series) on --base")
	cmd.Flags().StringVar(&run.Request.Base, "base", "", "with --series: the ref the series applies to")
	// --looks, not --repetitions: run's --repetitions is one number of
	// boots per variant, bisect's a list of boots per look.
	cmd.Flags().StringVar(&run.RepsText, "looks", bisect.RepsString(bisect.DefaultReps), "boots of each point in each look of the endpoints and steps, comma separated: more looks only while undecided")
	deprecatedAlias(cmd.Flags(), "repetitions", "looks")
	deprecatedAlias(cmd.Flags(), "reps", "looks")
	cmd.Flags().Float64Var(&run.Request.Alpha, "alpha", 0.05, "chance of naming a wrong culprit, split over the steps; in (0, 1)")
	flagkit.IDVar(cmd.Flags(), &run.Resume, "resume", "bisect id", "continue the interrupted bisect with this id")
	cmd.Flags().StringVar(&run.Request.Variant, "variant", "", "measure every commit with this variant of the experiment's family (its patches on top), as the nightly measured it")
	cmd.Flags().BoolVar(&run.NoConfirm, "no-confirm", false, "do not confirm the culprit by reverting it on the bad endpoint and measuring that")
	cmd.Flags().BoolVar(&run.Request.Crash, "crash", false, "bisect a crash: bad means the kernel crashes, hangs or does not boot in any boot of a step, or fails a selftest the good endpoint never fails")
	var showOut *flagkit.Outputs
	show := &cobra.Command{
		Use:     "show ID",
		Example: `  kregress bisect show 3                 # a stored bisect: its steps and verdicts`,
		Short:   "print a stored bisect: its result, every step, and a git bisect log",
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return showBisect(cmd, showOut, args[0]) },
	}
	// show's -f json (--json) prints the bisect with the culprit report
	// inside; -o writes the report's formats to files.
	jsonFlag(show)
	showOut = addReportOutputs(show, false)
	cmd.AddCommand(show, newBisectStep(), newBisectList())
	return cmd
}

// runBisect is kregress bisect: a new bisect from the flags, or a stored
// one resumed (session.BisectRun.Run: its error is the exit code).
func runBisect(cmd *cobra.Command, run *session.BisectRun) error {
	cfg, err := load(cmd)
	if err != nil {
		return err
	}
	ctx, cancel := signalContext()
	defer cancel()
	run.Request.Experiment = configFile
	// A bisect to resume is in an existing store: refused (exit 2) before
	// the store is created for recording.
	if run.Resume > 0 {
		if _, err := store.MustExist(cfg.StoreSpec()); err != nil {
			return err
		}
	}
	ports := session.BisectPorts{Load: config.Loader(cmd.Flags()), Open: openRecording, Report: reporter(cmd)}
	if firstBuild != nil {
		ports.Prober = stoppedAtBuild{firstBuild}
	}
	// Interrupted, the error says how to resume: "kregress: " and exit 1.
	return run.Run(ctx, cfg, ports, bisectOutput(cmd))
}

// showBisect is kregress bisect show ID.
func showBisect(cmd *cobra.Command, reports *flagkit.Outputs, arg string) error {
	out := bisectOutput(cmd)
	var err error
	if _, out.Files, err = reports.Resolve(); err != nil {
		return err
	}
	id, err := bisect.ParseID(arg)
	if err != nil {
		return err
	}
	return withStore(cmd, store.ReadOnly, func(_ *config.Config, store results.Store) error {
		return bisect.Show(cmd.Context(), store, id, out)
	})
}

// bisectOutput is where a bisect command writes: cmd's stdout and
// stderr, JSON with -f json or --json.
func bisectOutput(cmd *cobra.Command) bisect.Output {
	return bisect.Output{Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr(), JSON: wantJSON(cmd)}
}

func newBisectStep() *cobra.Command {
	var req bisect.StepRequest
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runBisectStep(cmd, &req) },
	}
	addConfigFlags(cmd, "repetitions", "executor.detach")
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	cmd.Flags().StringVar(&req.Good, "good", "", "the good endpoint")
	cmd.Flags().StringVar(&req.Bad, "bad", "", "the bad endpoint")
	cmd.Flags().StringVar(&req.Metric, "metric", "", "the metric")
	cmd.Flags().StringVar(&req.RepsText, "looks", bisect.RepsString(bisect.DefaultReps), "boots of each point in each look, comma separated")
	deprecatedAlias(cmd.Flags(), "repetitions", "looks")
	deprecatedAlias(cmd.Flags(), "reps", "looks")
	cmd.Flags().Float64Var(&req.Alpha, "alpha", 0.05, "chance of naming a wrong culprit over the whole bisect (this step gets its share); in (0, 1)")
	return cmd
}

// runBisectStep is kregress bisect step (bisect.StepRequest.Run): it
// exits as git bisect run expects, 128 (which stops git bisect run) when
// it cannot measure.
func runBisectStep(cmd *cobra.Command, req *bisect.StepRequest) error {
	cfg, err := load(cmd)
	if err != nil {
		return verdict.ExitError(verdict.ExitStepAbort)
	}
	ctx, cancel := signalContext()
	defer cancel()
	return req.Run(ctx, cfg, bisect.StepPorts{Open: openRecording, Report: reporter(cmd)}, bisectOutput(cmd))
}

// addReportOutputs gives a bisect command -o FMT=FILE for the culprit
// report (format.CulpritFormats: Markdown, also appended to
// $GITHUB_STEP_SUMMARY when set, JSON, JUnit XML and a plain-text mail
// body; kregress never sends mail), with the old --markdown FILE,
// --junit FILE, --report-mail FILE (and, unless the command's --json is
// the print-JSON switch, --json FILE) as deprecated aliases.
func addReportOutputs(cmd *cobra.Command, jsonAlias bool) *flagkit.Outputs {
	o := addOutputFlags(cmd, nil, format.Names(format.CulpritFormats...))
	flagkit.OutputAlias(cmd.Flags(), "markdown", "markdown")
	flagkit.OutputAlias(cmd.Flags(), "junit", "junit")
	flagkit.OutputAlias(cmd.Flags(), "report-mail", "mail")
	if jsonAlias {
		flagkit.OutputAlias(cmd.Flags(), "json", "json")
	}
	return o
}

// newBisectList is `kregress bisect list`.
func newBisectList() *cobra.Command {
	var limit int
	c := &cobra.Command{
		Use:     "list",
		Short:   "list stored bisects, newest first: what they searched, the culprit and its confirmation",
		Example: `  kregress bisect list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withStore(cmd, store.ReadOnly, func(_ *config.Config, store results.Store) error {
				return bisect.List(cmd.Context(), store, limit, bisectOutput(cmd))
			})
		},
	}
	c.Flags().IntVar(&limit, "limit", 20, "at most this many (0: all)")
	jsonFlag(c)
	return c
}

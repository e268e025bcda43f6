package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// bisect's own exit codes, beside 0 (culprit named), 1 (infrastructure)
// and 2 (usage).
const (
	exitNotReproduced = 7 // good and bad do not differ in the metric
	exitInconclusive  = 8 // skips leave a range, not a single culprit
)

func newBisect() *cobra.Command {
	var (
		good, bad, metric, series, base, repsText string
		variant                                   string
		alpha                                     float64
		resume                                    int64
		crash, noConfirm                          bool
		reports                                   reportPaths
	)
	cmd := &cobra.Command{
		Use:   "bisect --good REF --bad REF --metric NAME",
		Short: "find the commit (or the patch of a series) that changed a metric",
		Long: `bisect searches kernel.git_tree (--kernel.git-tree) between --good and --bad for
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
to --markdown (and $GITHUB_STEP_SUMMARY), --json, --junit and
--report-mail FILE (a mail body; kregress never sends mail). A metric
bisect runs no selftest gate; --crash keeps it. See docs/bisect.md.

Every step is stored; Ctrl-C keeps them and --resume ID continues.
"kregress bisect list" lists the stored bisects.
"kregress bisect show ID" prints a bisect again, with a replayable
git bisect log.

Exit codes: 0 culprit named; 1 infrastructure failure; 2 usage (same or
reversed endpoints, unknown ref or metric); 7 does not reproduce; 8
inconclusive.`,
		Example: `  kregress bisect --kernel.git-tree ~/linux --good v6.12 --bad v6.13-rc1 --metric rstat_lock_hold_p99_us
  kregress bisect --series outgoing/ --base v6.12 --metric reads_per_sec -c rstat-every-n
  kregress bisect --resume 3
  kregress bisect show 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			if err := waitsForCells(cmd, cfg); err != nil {
				return err
			}
			if resume < 0 {
				return usageError{fmt.Errorf("--resume %d is not a bisect id (see the id a bisect prints)", resume)}
			}
			reps, err := parseReps(repsText)
			if err != nil {
				return usageError{err}
			}
			// Before anything builds: an alpha outside (0, 1), or looks
			// too small for it, could only ever end "does not reproduce".
			if resume == 0 {
				if err := checkBisectOptions(alpha, reps, crash); err != nil {
					return usageError{err}
				}
			}
			ctx, cancel := signalContext()
			defer cancel()
			store, err := openStore(ctx, cfg.StoreSpec())
			if err != nil {
				return err
			}
			defer store.Close()
			rep := reporter()
			var spec *bisect.Spec
			if resume != 0 {
				b, err := store.GetBisect(ctx, resume)
				if err != nil {
					return err
				}
				if spec, _, err = bisect.Load(b); err != nil {
					return err
				}
				if spec.Experiment != "" {
					if cfg, _, err = config.Load(spec.Experiment, cmd.Flags()); err != nil {
						return usageError{err}
					}
				}
				cfg.Kernel.GitTree = spec.GitTree
				if spec.Alpha != 0 || len(spec.Reps) > 0 {
					if err := checkBisectOptions(spec.Alpha, spec.Reps, spec.Crash); err != nil {
						return fmt.Errorf("bisect %d was stored with options this version refuses: %w", resume, err)
					}
				}
			} else {
				if (metric == "" && !crash) || (series == "" && (good == "" || bad == "")) || (series != "" && base == "") {
					return usageError{errors.New("give --metric (or --crash) and either --good and --bad, or --series and --base")}
				}
				if err := checkMetricName(cfg.Workload.Name, metric); err != nil {
					return usageError{err}
				}
				if cfg.Kernel.GitTree == "" {
					return usageError{errors.New("bisect needs a kernel git repository: --kernel.git-tree (kernel.git_tree)")}
				}
				if series != "" {
					spec, err = bisect.SeriesRange(cfg.Kernel.GitTree, base, series, filepath.Join(cfg.CacheDir, "bisect-series", shortHash(series+base)))
				} else {
					spec, err = bisect.CommitRange(ctx, cfg.Kernel.GitTree, good, bad)
				}
				if err != nil {
					return usageError{err}
				}
				spec.Experiment, spec.Metric, spec.Alpha, spec.Reps, spec.Crash = configFile, metric, alpha, reps, crash
				if variant != "" {
					if err := onVariant(cfg, spec, variant); err != nil {
						return usageError{err}
					}
				}
				if crash {
					spec.Metric = "kernel failures"
				}
			}
			prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: store, Report: rep}
			speculate, err := bisect.SpeculationFor(cfg, runtime.NumCPU())
			if err != nil {
				return usageError{err}
			}
			sess := &bisect.Session{Store: store, Prober: prober, Report: rep, NoConfirm: noConfirm, Speculate: speculate}
			var id int64
			var res *bisect.Result
			if resume != 0 {
				b, s, r, e := sess.Resume(ctx, resume)
				if b != nil {
					id, spec = b.ID, s
				}
				res, err = r, e
			} else {
				b, r, e := sess.Start(ctx, spec)
				if b != nil {
					id = b.ID
				}
				res, err = r, e
			}
			fmt.Println()
			bisect.WriteReport(os.Stdout, id, spec, res, err)
			if id != 0 {
				if _, rerr := reports.write(context.Background(), store, id, spec, res, err, true); rerr != nil {
					return fmt.Errorf("bisect %d: the culprit report: %w", id, rerr)
				}
			}
			var ume *bisect.UnknownMetricError
			switch {
			case errors.As(err, &ume):
				return usageError{err}
			case errors.Is(err, bisect.ErrNotReproduced):
				return exitCode(exitNotReproduced)
			case ctx.Err() != nil:
				fmt.Fprintf(os.Stderr, "kregress: bisect %d interrupted; its steps are stored: kregress bisect --resume %d\n", id, id)
				return exitCode(exitFailure)
			case err != nil:
				return fmt.Errorf("bisect %d: %w (steps so far are stored: kregress bisect --resume %d)", id, err, id)
			case res.Culprit == "":
				return exitCode(exitInconclusive)
			}
			return nil
		},
	}
	// repetitions is bisect's own (boots per look, a list).
	addConfigFlags(cmd, "repetitions", "executor.detach")
	addExecutorFlags(cmd, false)
	deprecatedAlias(cmd.Flags(), "git-tree", config.FlagFor("kernel.git_tree"))
	f := cmd.Flags()
	reports.addFlags(f, true)
	f.StringVar(&good, "good", "", "a ref where the metric is as it should be")
	f.StringVar(&bad, "bad", "", "a later ref where it changed")
	f.StringVar(&metric, "metric", "", "the metric to bisect (one the experiment's workload reports)")
	f.StringVar(&series, "series", "", "bisect the prefixes of this patch series (a directory, mbox or quilt series) on --base")
	f.StringVar(&base, "base", "", "with --series: the ref the series applies to")
	f.StringVar(&repsText, "repetitions", defaultReps(), "boots of each point in each look of the endpoints and steps, comma separated: more looks only while undecided")
	deprecatedAlias(f, "reps", "repetitions")
	f.Float64Var(&alpha, "alpha", 0.05, "chance of naming a wrong culprit, split over the steps; in (0, 1)")
	f.Int64Var(&resume, "resume", 0, "continue the interrupted bisect with this id")
	f.StringVar(&variant, "variant", "", "measure every commit with this variant of the experiment's family (its patches on top), as the nightly measured it")
	f.BoolVar(&noConfirm, "no-confirm", false, "do not confirm the culprit by reverting it on the bad endpoint and measuring that")
	f.BoolVar(&crash, "crash", false, "bisect a crash: bad means the kernel crashes, hangs or does not boot in any boot of a step, or fails a selftest the good endpoint never fails")
	cmd.AddCommand(newBisectStep(), newBisectList())
	var showReports reportPaths
	show := &cobra.Command{
		Use:     "show ID",
		Example: `  kregress bisect show 3                 # a stored bisect: its steps and verdicts`,
		Short:   "print a stored bisect: its result, every step, and a git bisect log",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil {
				return usageError{fmt.Errorf("%q is not a bisect id", args[0])}
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
			if res != nil && !res.Reproduced && b.Status == "complete" {
				runErr = bisect.ErrNotReproduced
			}
			if wantJSON(cmd) {
				doc := newBisectDoc(b, spec, res)
				// The report reads the culprit's commit from the git tree;
				// without the tree the stored bisect is still shown.
				if doc.Report, err = bisect.BuildReport(cmd.Context(), store, id, spec, res, runErr); err != nil {
					doc.ReportError = err.Error()
				}
				return writeJSON(os.Stdout, doc)
			}
			status := b.Status
			if status == "running" {
				status = "running, or interrupted if no kregress bisect is running now"
			}
			fmt.Printf("status: %s (started %s)\n", status, b.StartedAt.Local().Format("2006-01-02 15:04"))
			bisect.WriteReport(os.Stdout, id, spec, res, runErr)
			if b.Status != "complete" && runErr == nil && (res == nil || res.Culprit == "") {
				runErr = errors.New("not finished")
			}
			_, err = showReports.write(cmd.Context(), store, id, spec, res, runErr, false)
			return err
		},
	}
	// show's --json is the listing commands' switch (print JSON, with the
	// culprit report inside); the report's other formats go to files.
	jsonFlag(show)
	showReports.addFlags(show.Flags(), false)
	cmd.AddCommand(show)
	return cmd
}

// checkMetricName refuses, before anything builds, a --metric the
// experiment's workload does not report (guest/metrics, what kregress
// metrics lists); the bisect would measure both endpoints first.
func checkMetricName(workload, metric string) error {
	if metric == "" || metrics.For(workload) == nil {
		return nil
	}
	if _, ok := metrics.Lookup(workload, metric); !ok {
		return fmt.Errorf("--metric %s: workload %s reports no such metric (kregress metrics %s lists them: %s)", metric, workload, workload, strings.Join(metrics.Names(workload), ", "))
	}
	return nil
}

// checkBisectOptions refuses an alpha outside (0, 1) (an explicit 0
// too) and looks too small for alpha, naming the boots that would do.
func checkBisectOptions(alpha float64, reps []int, crash bool) error {
	if err := bisect.CheckOptions(alpha, reps, crash); err != nil {
		if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
			return fmt.Errorf("--alpha %v: want a false-call rate in (0, 1), e.g. 0.05", alpha)
		}
		return fmt.Errorf("--repetitions %s: %w", repsString(reps), err)
	}
	return nil
}

func defaultReps() string { return repsString(bisect.DefaultReps) }

func repsString(reps []int) string {
	var s []string
	for _, r := range reps {
		s = append(s, strconv.Itoa(r))
	}
	return strings.Join(s, ",")
}

func parseReps(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100 {
			return nil, fmt.Errorf("--repetitions %q: want comma-separated boot counts in 1..100", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// git bisect run's exit codes.
const (
	bisectRunGood  = 0
	bisectRunBad   = 1
	bisectRunSkip  = 125
	bisectRunAbort = 128 // >= 128 stops git bisect run: an infrastructure failure
)

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
				return exitCode(bisectRunAbort)
			}
			reps, err := parseReps(repsText)
			if err != nil || metric == "" || good == "" || bad == "" || cfg.Kernel.GitTree == "" {
				fmt.Fprintf(os.Stderr, "kregress bisect step: give --good, --bad, --metric and --kernel.git-tree; --repetitions as %s\n", defaultReps())
				return exitCode(bisectRunAbort)
			}
			if err := checkBisectOptions(alpha, reps, false); err != nil {
				fmt.Fprintln(os.Stderr, "kregress bisect step:", err)
				return exitCode(bisectRunAbort)
			}
			ctx, cancel := signalContext()
			defer cancel()
			store, err := openStore(ctx, cfg.StoreSpec())
			if err != nil {
				fmt.Fprintln(os.Stderr, "kregress bisect step:", err)
				return exitCode(bisectRunAbort)
			}
			defer store.Close()
			spec, err := bisect.CommitRange(ctx, cfg.Kernel.GitTree, good, bad)
			if err != nil {
				fmt.Fprintln(os.Stderr, "kregress bisect step:", err)
				return exitCode(bisectRunAbort)
			}
			head, err := bisect.HeadCommit(ctx, cfg.Kernel.GitTree)
			if err != nil {
				fmt.Fprintln(os.Stderr, "kregress bisect step:", err)
				return exitCode(bisectRunAbort)
			}
			spec.Points[head] = bisect.Point{Ref: head}
			goodC, badC := spec.Names[0], spec.Names[len(spec.Names)-1]
			prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: metric, Store: store, Report: reporter()}
			step, err := bisect.StepOnce(ctx, prober, head, goodC, badC, bisect.Options{Alpha: alpha, Reps: reps, Range: len(spec.Names) - 1, Report: reporter()})
			if err != nil {
				fmt.Fprintln(os.Stderr, "kregress bisect step:", err)
				return exitCode(bisectRunAbort)
			}
			fmt.Printf("%.12s: %s (%s)\n", head, step.Verdict, step.Why)
			switch step.Verdict {
			case bisect.Good:
				return nil
			case bisect.Bad:
				return exitCode(bisectRunBad)
			}
			return exitCode(bisectRunSkip)
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

// onVariant makes every point of spec carry the patches of cfg's variant
// name, copied under the cache (a resumed bisect finds them there).
func onVariant(cfg *config.Config, spec *bisect.Spec, name string) error {
	c := *cfg
	sel, err := variants.Resolve(&c)
	if err != nil {
		return fmt.Errorf("--variant %s: %w", name, err)
	}
	v, err := sel.Family.Variant(name)
	if err != nil {
		return fmt.Errorf("--variant: %w", err)
	}
	return spec.OnVariant(v, filepath.Join(cfg.CacheDir, "bisect-variant", shortHash(cfg.Experiment+"/"+name)))
}

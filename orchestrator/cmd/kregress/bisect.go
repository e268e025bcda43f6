package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
)

// bisect's own exit codes, beside 0 (culprit named), 1 (infrastructure)
// and 2 (usage).
const (
	exitNotReproduced = 7 // good and bad do not differ in the metric
	exitInconclusive  = 8 // skips leave a range, not a single culprit
)

func newBisect() *cobra.Command {
	var (
		good, bad, metric, series, base, gitTree, repsText string
		alpha                                              float64
		resume                                             int64
		crash                                              bool
	)
	cmd := &cobra.Command{
		Use:   "bisect --good REF --bad REF --metric NAME",
		Short: "find the commit (or the patch of a series) that changed a metric",
		Long: `bisect searches kernel.git_tree (or --git-tree) between --good and --bad for
the first commit that changed --metric, measured with the experiment's
workload (-c; default rstat-relock's). With --series DIR|MBOX --base REF it
searches the prefixes of a patch series instead.

The endpoints are measured first, interleaved, look by look (--reps); if a
two-sided rank test stratified by look (at alpha / looks) never finds them
different the bisect stops ("does not reproduce", exit 7). The first
midpoint boots along in those looks. Once they have measured the
endpoints' change, each look of a step boots its kernel interleaved with
one endpoint (good and bad in turn, 3 boots each), and the step is
compared only with the endpoint boots of its own look, so a host that
drifts between looks cannot move a call. A sequential likelihood-ratio test
on those within-look comparisons calls it like bad ("different"), like good
("same": a step like bad would have been seen), or unsure (measure the next
look); still unsure after the last look, or different from both endpoints,
it counts as a skip. Each step may be miscalled at most
alpha / (ceil(log2 commits) + 2) of the time (its test runs at 0.65 of
that, as the spread and change are estimated), so the bisect names a wrong
culprit at most alpha of the time; the printed confidence is 1 minus the
sum actually spent.

--crash bisects a failure instead: the bad endpoint is booted until it has
failed 4 times (its failure rate), a step is bad at its first failure and
good after enough clean boots that a kernel failing at that rate would
have failed in one (booting only the step, not the endpoints).

A commit that does not build, or whose kernel crashes in a metric bisect,
is skipped (git bisect run's 125); one whose bzImage equals a measured one
reuses its verdict without booting. Skips next to the culprit leave a range
(exit 8). --reps and --alpha are checked before anything builds: looks too
small for alpha are refused, naming the boots per look that would do.

Every step is stored; Ctrl-C keeps them and --resume ID continues.
"kregress bisect show ID" prints a bisect again, with a replayable
git bisect log.

Exit codes: 0 culprit named; 1 infrastructure failure; 2 usage (same or
reversed endpoints, unknown ref or metric); 7 does not reproduce; 8
inconclusive.`,
		Example: `  kregress bisect --git-tree ~/linux --good v6.12 --bad v6.13-rc1 --metric rstat_lock_hold_p99_us
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
			if gitTree != "" {
				cfg.Kernel.GitTree = gitTree
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
				if cfg.Kernel.GitTree == "" {
					return usageError{errors.New("bisect needs a kernel git repository: --git-tree or kernel.git_tree")}
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
				if crash {
					spec.Metric = "kernel failures"
				}
			}
			prober := &bisect.PipelineProber{Cfg: cfg, Points: spec.Points, Metric: spec.Metric, Crash: spec.Crash, Store: store, Report: rep}
			sess := &bisect.Session{Store: store, Prober: prober, Report: rep}
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
	addExecutorFlags(cmd, false)
	f := cmd.Flags()
	f.StringVar(&good, "good", "", "a ref where the metric is as it should be")
	f.StringVar(&bad, "bad", "", "a later ref where it changed")
	f.StringVar(&metric, "metric", "", "the metric to bisect (one the experiment's workload reports)")
	f.StringVar(&series, "series", "", "bisect the prefixes of this patch series (a directory, mbox or quilt series) on --base")
	f.StringVar(&base, "base", "", "with --series: the ref the series applies to")
	f.StringVar(&gitTree, "git-tree", "", "the kernel git repository (default: kernel.git_tree)")
	f.StringVar(&repsText, "reps", defaultReps(), "boots of each point in each look of the endpoints (and of a step measured by 'bisect step'), comma separated: more looks only while undecided")
	f.Float64Var(&alpha, "alpha", 0.05, "chance of naming a wrong culprit, split over the steps; in (0, 1)")
	f.Int64Var(&resume, "resume", 0, "continue the interrupted bisect with this id")
	f.BoolVar(&crash, "crash", false, "bisect a crash: bad means the kernel crashes, hangs or does not boot in any boot of a step, or fails a selftest the good endpoint never fails")
	cmd.AddCommand(newBisectStep())
	cmd.AddCommand(&cobra.Command{
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
			status := b.Status
			if status == "running" {
				status = "running, or interrupted if no kregress bisect is running now"
			}
			fmt.Printf("status: %s (started %s)\n", status, b.StartedAt.Local().Format("2006-01-02 15:04"))
			var runErr error
			if res != nil && !res.Reproduced && b.Status == "complete" {
				runErr = bisect.ErrNotReproduced
			}
			bisect.WriteReport(os.Stdout, id, spec, res, runErr)
			return nil
		},
	})
	return cmd
}

// checkBisectOptions refuses an alpha outside (0, 1) (an explicit 0
// too) and looks too small for alpha, naming the boots that would do.
func checkBisectOptions(alpha float64, reps []int, crash bool) error {
	if err := bisect.CheckOptions(alpha, reps, crash); err != nil {
		if math.IsNaN(alpha) || alpha <= 0 || alpha >= 1 {
			return fmt.Errorf("--alpha %v: want a false-call rate in (0, 1), e.g. 0.05", alpha)
		}
		return fmt.Errorf("--reps %s: %w", repsString(reps), err)
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
			return nil, fmt.Errorf("--reps %q: want comma-separated boot counts in 1..100", s)
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
	var good, bad, metric, gitTree, repsText string
	var alpha float64
	cmd := &cobra.Command{
		Use:     "step --good REF --bad REF --metric NAME",
		Example: `  git bisect start BAD GOOD && git bisect run kregress bisect step --good GOOD --bad BAD --metric rstat_lock_hold_p99_us`,
		Short:   "one step for git bisect run: measure HEAD of the tree against both endpoints",
		Long: `step measures the commit checked out in --git-tree (kernel.git_tree) against
fresh boots of --good and --bad, as one step of kregress bisect does, and
exits as git bisect run expects: 0 like good, 1 like bad, 125 skip (does
not build, crashed, or undecided after every look), 128 on an
infrastructure failure (which stops git bisect run).

  git bisect start BAD GOOD
  git bisect run kregress bisect step --good GOOD --bad BAD --metric rstat_lock_hold_p99_us`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return exitCode(bisectRunAbort)
			}
			if gitTree != "" {
				cfg.Kernel.GitTree = gitTree
			}
			reps, err := parseReps(repsText)
			if err != nil || metric == "" || good == "" || bad == "" || cfg.Kernel.GitTree == "" {
				fmt.Fprintf(os.Stderr, "kregress bisect step: give --good, --bad, --metric and --git-tree; --reps as %s\n", defaultReps())
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
	f := cmd.Flags()
	f.StringVar(&good, "good", "", "the good endpoint")
	f.StringVar(&bad, "bad", "", "the bad endpoint")
	f.StringVar(&metric, "metric", "", "the metric")
	f.StringVar(&gitTree, "git-tree", "", "the kernel git repository whose HEAD is measured (default: kernel.git_tree)")
	f.StringVar(&repsText, "reps", defaultReps(), "boots of each look")
	f.Float64Var(&alpha, "alpha", 0.05, "chance of naming a wrong culprit over the whole bisect (this step gets its share); in (0, 1)")
	return cmd
}

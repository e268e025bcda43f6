package session

// What kregress run and seeds do after their checks: measure, show each
// run's diff as soon as it is stored, then run and show the debug pass.
// The wording is results/format's, the diff table results/diffreport's;
// this file decides the order and what is judged.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/diffreport"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/verdict"
)

// DiffPrinter prints stored run id's diff, judged with opts, to w and
// returns its comparisons (one; one per vCPU count of a sweep).
type DiffPrinter func(ctx context.Context, store results.Store, id int64, opts compare.Options, w io.Writer) ([]*compare.Diff, error)

// Output is where a command shows a session's runs as they end.
type Output struct {
	W io.Writer
	// Diff prints each run's diff; nil is kregress diff's table
	// (diffreport.PrintRun), what every command shows (tests print
	// their own).
	Diff DiffPrinter
}

// printDiff prints stored run id's diff through o's printer.
func (o Output) printDiff(ctx context.Context, store results.Store, id int64, opts compare.Options) ([]*compare.Diff, error) {
	if o.Diff == nil {
		return diffreport.PrintRun(ctx, store, id, opts, o.W)
	}
	return o.Diff(ctx, store, id, opts, o.W)
}

// Env is what a command gives the session it runs: how its experiment is
// resolved with the command's own flags (--patch), how the store it
// measures into is opened, where progress goes and where its runs are
// shown.
type Env struct {
	Select func(cfg *config.Config) (*variants.Selection, error)
	Open   func(ctx context.Context, spec string) (results.Store, error)
	Report progress.Reporter
	Out    Output
}

// Judged is what a shown run came to: its diffs (one per vCPU count of
// a sweep), and whether a candidate fails one or the debug pass flagged
// one.
type Judged struct {
	Diffs   []*compare.Diff
	Flagged bool
}

// Request is what kregress run asks of a session besides the
// experiment: its own flags, which bind straight into it.
type Request struct {
	Alpha float64
	// ExtraRounds and GreyUpper are run's looks (judging.Looks): while a
	// metric is unsure after a look, the run is extended by its
	// repetitions again, up to ExtraRounds times, alpha split over the
	// looks.
	ExtraRounds int
	GreyUpper   float64
	Resume      int64 // a run to finish (0: a new run)
	DryRun      bool
	// Gate makes the verdict a CI gate's (--fail-on-regression, see
	// compare.Gate); without it every run that ends passes.
	Gate bool
}

// Run is kregress run given its configuration: its own flags checked
// (CheckRequest), the experiment resolved (env.Select), then Experiment
// through a session reporting to env.Report that runs the debug pass
// when debug.pass is auto (AutoDebug); the command ends as its verdict
// says (verdict.End: with Gate, 3 when a candidate fails, 9 when a
// primary metric was unjudged) or with its error.
func (req Request) Run(ctx context.Context, cfg *config.Config, env Env) error {
	if err := CheckRequest(req); err != nil {
		return err
	}
	sel, err := env.Select(cfg)
	if err != nil {
		return err
	}
	v, err := (&Session{Report: env.Report, AutoDebug: true}).Experiment(ctx, cfg, sel, req, env)
	if err != nil {
		return err
	}
	return verdict.End(v)
}

// Looks is how req's run spends alpha over its looks.
func (req Request) Looks() judging.Looks {
	return judging.Looks{Alpha: req.Alpha, Extra: req.ExtraRounds, GreyUpper: req.GreyUpper}
}

// CheckRequest refuses run's own arguments before the experiment is
// resolved: alpha out of (0, 1), looks no run can take, a run ID that
// cannot be one.
func CheckRequest(req Request) error {
	if err := req.Looks().Check(); err != nil {
		return usage.Wrap(err)
	}
	if req.Resume < 0 {
		return usage.Wrap(fmt.Errorf("--resume %d is not a run id (see kregress results list)", req.Resume))
	}
	return nil
}

// Experiment is kregress run once the experiment is resolved: the checks
// that need no build (Check), then the dry run (DryRun), or the measured
// run into the store env.Open opens, shown on env.Out as it ends (Run), and its
// verdict: with req.Gate, the gate's on what was compared (compare.Gate,
// whose error names an unmeasured candidate), else ComparisonPass. The trees'
// refusals (a primary metric no tree can produce, a patch that does not
// apply: exit 2) come from the run's preparation before anything is
// built, or from Plans for a dry run.
func (s *Session) Experiment(ctx context.Context, cfg *config.Config, sel *variants.Selection, req Request, env Env) (verdict.Comparison, error) {
	if len(cfg.SweepCounts()) > 0 && req.ExtraRounds > 0 {
		// A look judges one comparison; a sweep's are one per count, and
		// alpha split over looks never taken would only cost power.
		env.Report.Printf("note: a vCPU sweep takes no extra rounds (--extra-rounds %d not used): `kregress run --resume RUN --repetitions N --vm.cpus-sweep %s` adds boots at every count", req.ExtraRounds, format.SweepFlag(cfg.SweepCounts()))
		req.ExtraRounds = 0
	}
	if err := Check(cfg, sel, req.Looks()); err != nil {
		return "", err
	}
	if w := cfg.Overcommit(runtime.NumCPU()); w != "" {
		env.Report.Printf("%s", progress.Warning(w))
	}
	if req.DryRun {
		return verdict.ComparisonPass, s.DryRun(ctx, env.Out.W, cfg, sel)
	}
	store, err := env.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return "", err
	}
	defer store.Close()
	s.Store = store
	judged, err := s.Run(ctx, cfg, sel, req.Looks(), req.Resume, env.Out)
	if err != nil || judged == nil || !req.Gate {
		return verdict.ComparisonPass, err
	}
	return compare.Gate(judged.Flagged, judged.Diffs...)
}

// Run is kregress run once its checks passed: it measures cfg's
// experiment into a new run (or finishes run resume), takes the further
// looks while a metric is unsure (Looks), says where it was stored and
// shows it (Show), judged at the looks' alpha each. A run of one variant
// is summarized instead, and a detached run is only announced: both give
// no Judged (nil), as nothing was compared.
func (s *Session) Run(ctx context.Context, cfg *config.Config, sel *variants.Selection, looks judging.Looks, resume int64, out Output) (*Judged, error) {
	// The budget's minutes count the builds too: the user waits for them.
	began := s.now()
	runID, prep, err := s.Measure(ctx, cfg, sel, resume)
	if errors.Is(err, pipeline.ErrDetached) {
		format.WriteDetached(out.W, runID, s.Store.Where())
		return nil, nil
	}
	if err != nil {
		if runID != 0 {
			return nil, fmt.Errorf("run %d: %w (completed cells are stored; `kregress diff %d` compares them, the same command with --resume %d finishes the run)", runID, err, runID, runID)
		}
		return nil, err
	}
	if len(prep.Variants) == 1 {
		format.WriteRunStored(out.W, runID, s.Store.Where())
		rs, err := s.Store.Results(ctx, runID)
		if err != nil {
			return nil, err
		}
		format.WriteSetSummary(out.W, prep.Variants[0].Name, compare.SummarizeSet(rs, compare.Options{Alpha: looks.Alpha}))
		return nil, nil
	}
	// The preparation may have judged the workload's fallback primary
	// (cfg says so now): the options are taken after it.
	opts := looks.Options(cfg, judging.AnyWorkload)
	if err := s.Looks(ctx, cfg, prep, runID, looks, opts, began, out.W); err != nil {
		return nil, err
	}
	format.WriteRunStored(out.W, runID, s.Store.Where())
	return s.Show(ctx, cfg, sel, runID, opts, out)
}

// Looks takes stored run runID's further looks: while the comparison
// judged with opts (at looks.Each) has unsure metrics and looks remain,
// the run is extended by its repetitions again, into the same run, and
// judged again on every boot so far; each extension is said on w. Within
// a budget (looks.*: judging.Budget, the run begun at began), a round
// the budget refuses is not started, which w is told with the command
// that measures more, and how the looks went is said last.
func (s *Session) Looks(ctx context.Context, cfg *config.Config, prep *pipeline.Prepared, runID int64, looks judging.Looks, opts compare.Options, began time.Time, w io.Writer) error {
	if looks.N() < 2 || len(cfg.SweepCounts()) > 0 {
		return nil
	}
	run, err := s.Store.GetRun(ctx, runID)
	if err != nil {
		return err
	}
	sched, err := pipeline.StoredSchedule(run.Config)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if len(sched.VM.CPUsSweep) > 0 {
		// A resumed sweep run whose command line left out the sweep:
		// the stored schedule measured it count by count, and a look
		// judges one comparison.
		return nil
	}
	step, reps := sched.Repetitions, sched.Repetitions
	budget := judging.BudgetOf(cfg)
	afford := budget.Afford(s.now, began, step*len(prep.Variants), func() ([]*results.Result, error) { return s.Store.Results(ctx, runID) })
	_, taken, err := looks.TakeWithin(afford,
		func() (*compare.Diff, error) { return Judge(ctx, s.Store, runID, opts) },
		func(look int, unsure []string) error {
			reps += step
			format.WriteLook(w, look, looks.N(), unsure, looks.Each(), looks.GreyUpper, reps)
			if err := s.measurer().Extend(ctx, cfg, prep, s.Store, runID, reps, s.Report); err != nil {
				return fmt.Errorf("run %d, look %d: %w (the cells measured so far are stored; `kregress diff %d` judges them)", runID, look+1, err, runID)
			}
			return nil
		})
	if err != nil {
		return err
	}
	if o := taken.Over; o != nil {
		fmt.Fprintln(w, format.BudgetStop(o.Boots, judging.Minutes(o.Time), o.Exceeds, taken.Looks, looks.N(),
			fmt.Sprintf("`kregress run --resume %d --repetitions %d` measures more", runID, reps+step)))
	}
	if budget.Bounded() {
		fmt.Fprintln(w, format.LooksTaken(taken.Looks, looks.N(), taken.Stop.Say(), looks.Each()))
	}
	return nil
}

// Show prints stored run id's diff (judged with opts) and, when this
// session runs one (DebugWanted), runs the debug pass and prints its diff
// (judged with DebugOptions). The measured run's diff comes first: the
// debug kernels are cold builds.
func (s *Session) Show(ctx context.Context, cfg *config.Config, sel *variants.Selection, id int64, opts compare.Options, out Output) (*Judged, error) {
	ds, err := out.printDiff(ctx, s.Store, id, opts)
	if err != nil {
		return nil, err
	}
	j := &Judged{Diffs: ds, Flagged: anyFailing(ds)}
	if !s.DebugWanted(cfg, sel) {
		if s.debugLeftOut(cfg, sel) {
			format.WriteNoDebugPass(out.W)
		}
		return j, nil
	}
	format.WriteDebugPass(out.W, cfg.Debug.Fragments, cfg.Debug.Duration)
	debugID, err := s.Debug(ctx, cfg, sel)
	if err != nil {
		return nil, err
	}
	format.WriteDebugRunStored(out.W, debugID, s.Store.Where())
	dd, err := out.printDiff(ctx, s.Store, debugID, DebugOptions(opts))
	if err != nil {
		return nil, err
	}
	j.Flagged = j.Flagged || anyFailing(dd)
	return j, nil
}

// anyFailing says whether a candidate fails any of ds.
func anyFailing(ds []*compare.Diff) bool {
	for _, d := range ds {
		if len(d.Failing()) > 0 {
			return true
		}
	}
	return false
}

// SeedsRun is kregress seeds: every experiment of Seeds in turn, each
// resolved by Load (the command's flags bound).
type SeedsRun struct {
	Load func(experiment string) (*config.Config, error)
}

// Run measures every experiment of Seeds into the store env.Open opens
// for it and shows it on env.Out (the debug pass too when debug.pass is
// on), after checking that every one is judgeable (CheckSeeds) before
// the first one builds; the first error stops the set. env.Select is not
// used: each experiment is measured whole.
func (r SeedsRun) Run(ctx context.Context, env Env) error {
	if err := CheckSeeds(Seeds, r.Load); err != nil {
		return err
	}
	for _, name := range Seeds {
		env.Report("=== seeds: experiment %s", name)
		if err := r.seed(ctx, env, name); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// seed measures experiment name of the set into a new run and shows it
// (Show at alpha 0.05).
func (r SeedsRun) seed(ctx context.Context, env Env, name string) error {
	cfg, err := r.Load(name)
	if err != nil {
		return err
	}
	if err := WaitsForCells("seeds", cfg); err != nil {
		return err
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return err
	}
	store, err := env.Open(ctx, cfg.StoreSpec())
	if err != nil {
		return err
	}
	defer store.Close()
	s := &Session{Store: store, Report: env.Report}
	id, _, err := s.Measure(ctx, cfg, sel, 0)
	if err != nil {
		return err
	}
	format.WriteSeedRun(env.Out.W, name, id)
	_, err = s.Show(ctx, cfg, sel, id, judging.Options(cfg, 0.05, judging.AnyWorkload), env.Out)
	return err
}

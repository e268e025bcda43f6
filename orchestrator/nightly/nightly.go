// Package nightly is the nightly CI job: each experiment runs on tonight's
// kernel (the tip of a branch, or the configured source), is compared
// with the last good night measured alike, and its history is searched
// for change points. It sits above the pipeline (which builds, boots and
// measures) and the store (which keeps nights and their marks); it never
// repeats their steps, as syzkaller's syz-ci sits above its manager.
package nightly

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/lines"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/judging"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/changepoint"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// Runner runs one experiment into the store (the pipeline; fakes in tests).
type Runner interface {
	Run(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error)
	// Resume finishes an interrupted run of the experiment.
	Resume(ctx context.Context, cfg *config.Config, sel *variants.Selection, runID int64) error
}

// PipelineRunner runs experiments with the real pipeline.
type PipelineRunner struct {
	Store  results.Store
	Report progress.Reporter
}

// Run implements Runner.
func (p PipelineRunner) Run(ctx context.Context, cfg *config.Config, sel *variants.Selection) (int64, error) {
	id, _, err := pipeline.RunExperiment(ctx, cfg, sel, p.Store, p.Report)
	return id, err
}

// Resume implements Runner.
func (p PipelineRunner) Resume(ctx context.Context, cfg *config.Config, sel *variants.Selection, runID int64) error {
	_, err := pipeline.ResumeExperiment(ctx, cfg, sel, p.Store, runID, p.Report)
	return err
}

// Night runs experiments as tonight's nightly.
type Night struct {
	Store  results.Store
	Runner Runner
	// Load resolves an experiment (built-in name or file) to its config.
	Load func(experiment string) (*config.Config, error)
	// Branch, when set, is measured at its tip: kernel.git_tree's branch.
	Branch string
	// Alpha is the false-discovery rate of the final comparison; with
	// extra repetitions it is spent over the looks (alpha / looks each).
	Alpha float64
	// GreyUpper: a metric with alpha/looks <= q < GreyUpper after the
	// first look gets ExtraRounds more runs of the experiment, pooled.
	// In (Alpha, 1]; 1 puts every metric that is not significant in the
	// grey zone (q = 1 included).
	GreyUpper   float64
	ExtraRounds int
	// Baseline, when set, is the run to compare with (must be of the
	// same experiment) instead of the last good night.
	Baseline int64
	Who      string
	// Resume: when an experiment's newest run was interrupted (or
	// failed), finish it, keeping its completed cells, as tonight's run.
	Resume bool
	// ResumeRuns: finish these runs only (each its experiment's newest,
	// interrupted or failed: CheckResume), as Resume does.
	ResumeRuns []int64
	Report     progress.Reporter
	// Debug, when set, runs each experiment's debug pass after its
	// measured night (debugpass.go); a finding fails the night.
	Debug DebugPass
	// KeepArtifacts, when positive, is nightly --keep-artifacts: after
	// each experiment, the artifacts of its runs older than this are
	// deleted (PruneArtifactsOlderThan).
	KeepArtifacts time.Duration
	// Now is the clock an experiment's budget for its looks
	// (looks.max_minutes) is read on; nil is time.Now.
	Now func() time.Time
}

// now reads the night's clock.
func (n *Night) now() time.Time {
	if n.Now != nil {
		return n.Now()
	}
	return time.Now()
}

func (n *Night) report(format string, args ...any) {
	if n.Report != nil {
		n.Report(format, args...)
	}
}

// CheckKnobs refuses settings no night can honour: its looks'
// (judging.Looks.Check: alpha, extra rounds, grey zone) and a baseline
// that cannot be a run.
func (n *Night) CheckKnobs() error {
	if err := n.looks().Check(); err != nil {
		return fmt.Errorf("nightly: %w", err)
	}
	if n.Baseline < 0 {
		return fmt.Errorf("nightly: --baseline %d is not a run id (see kregress results list)", n.Baseline)
	}
	return nil
}

// looks is the night's judging.Looks.
func (n *Night) looks() judging.Looks {
	return judging.Looks{Alpha: n.Alpha, Extra: n.ExtraRounds, GreyUpper: n.GreyUpper}
}

// judgeable refuses an experiment whose repetitions cannot reach alpha
// on its primary metrics, every variant's judged together: the nightly
// compares each variant, the baseline's too, with last night's.
func judgeable(cfg *config.Config, alpha float64) error {
	if err := cfg.OneCount("a night"); err != nil {
		return err
	}
	if cfg.GateOnly {
		return nil
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return err
	}
	return compare.CheckReps(cfg.Repetitions, len(sel.Variants), len(cfg.JudgedPrimary()), alpha)
}

// Looks is how many times a night may measure: once, plus the extra
// rounds; alpha is split over them.
func (n *Night) Looks() int { return n.looks().N() }

// Check validates the knobs and resolves every experiment before
// anything runs, so a typo costs seconds, not a night; an experiment
// whose repetitions cannot reach alpha/looks on its primary metrics
// (every candidate's judged together) is refused, naming the repetitions
// that would.
func (n *Night) Check(experiments []string) error {
	if err := n.CheckKnobs(); err != nil {
		return err
	}
	var bad refusals
	for _, e := range experiments {
		cfg, err := n.Load(e)
		if err != nil {
			bad.add(e, err.Error())
			continue
		}
		if err := judgeable(cfg, n.Alpha/float64(n.Looks())); err != nil {
			bad.add(e, err.Error())
			continue
		}
		if n.Branch != "" {
			if cfg.Kernel.GitTree == "" {
				bad.add(e, "--branch needs kernel.git_tree (the repository the branch is in)")
			} else if _, err := (kernel.GitSource{Tree: cfg.Kernel.GitTree, Ref: n.Branch}).Commit(context.Background()); err != nil {
				bad.add(e, err.Error())
			}
		}
	}
	if len(bad) > 0 {
		// An unknown experiment's own error lists the built-in ones.
		return fmt.Errorf("nightly: %s", bad)
	}
	return nil
}

// refusals are the reasons Check refuses experiments, each said once
// with every experiment it applies to (--branch without a tree refuses
// all eight seed experiments for one reason), in the order first met.
type refusals []refusal

type refusal struct {
	why         string
	experiments []string
}

// add records that experiment e is refused for why.
func (rs *refusals) add(e, why string) {
	for i := range *rs {
		if (*rs)[i].why == why {
			(*rs)[i].experiments = append((*rs)[i].experiments, e)
			return
		}
	}
	*rs = append(*rs, refusal{why: why, experiments: []string{e}})
}

// String is each reason after the experiments it refuses: "a, b: why;
// c: why2".
func (rs refusals) String() string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strings.Join(r.experiments, ", ") + ": " + r.why
	}
	return strings.Join(parts, "; ")
}

// Tonight is the whole night over experiments, in order: they are all
// checked first (Check, CheckResume, CheckBaseline; a refusal is a
// usage error and nothing runs), then each runs (Run) and its result goes
// to judged as soon as it is judged, so a table can stream, before its
// old artifacts are pruned (KeepArtifacts). An interrupted night stops after the
// experiment it was in, whose result is the last.
func (n *Night) Tonight(ctx context.Context, experiments []string, judged func(*nightreport.Result)) ([]*nightreport.Result, error) {
	if err := n.Check(experiments); err != nil {
		return nil, usage.Wrap(err)
	}
	if err := n.CheckResume(ctx, experiments); err != nil {
		return nil, usage.Wrap(err)
	}
	if err := n.CheckBaseline(ctx, experiments); err != nil {
		return nil, usage.Wrap(err)
	}
	var night []*nightreport.Result
	for _, e := range experiments {
		n.report("=== nightly: %s", e)
		r := n.Run(ctx, e)
		night = append(night, r)
		if judged != nil {
			judged(r)
		}
		if ctx.Err() != nil {
			break
		}
		n.PruneArtifactsOlderThan(ctx, e, n.KeepArtifacts)
	}
	return night, nil
}

// Run runs one experiment's night.
func (n *Night) Run(ctx context.Context, experiment string) *nightreport.Result {
	began := n.now()
	res := &nightreport.Result{Experiment: experiment, Started: time.Now().UTC()}
	defer func() {
		res.Finished = time.Now().UTC()
	}()
	fail := func(o verdict.Night, err error) *nightreport.Result {
		res.Outcome, res.Error = o, err.Error()
		res.Cases = append(res.Cases, nightreport.Case{Name: "night", Status: nightreport.CaseError, Message: lines.First(err.Error()), Detail: err.Error()})
		return res
	}
	cfg, err := n.Load(experiment)
	if err != nil {
		return fail(verdict.InfraFailure, err)
	}
	// As the user named it: the bisect command of a regression loads it
	// the same way.
	named := experiment
	// From here on, the experiment's own name (the argument may be a
	// file): runs are stored, and baselines found, under it.
	experiment = cfg.Experiment
	res.Experiment = experiment
	if n.Branch != "" {
		commit, err := n.onBranch(ctx, cfg)
		if err != nil {
			return fail(verdict.InfraFailure, err)
		}
		res.Commit = commit
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		return fail(verdict.InfraFailure, err)
	}
	var base *baseline
	if n.Baseline != 0 {
		if base, err = n.namedBaseline(ctx, experiment); err != nil {
			return fail(verdict.InfraFailure, err)
		}
	}
	if err := n.CheckKnobs(); err != nil {
		return fail(verdict.InfraFailure, err)
	}
	looks := n.Looks()
	alpha := n.Alpha / float64(looks)
	var tonight, firstLook []*results.Result
	var known compare.KnownTitles
	for look := 1; look <= looks; look++ {
		id, err := n.measureLook(ctx, cfg, sel, experiment, look, res)
		if err != nil {
			return fail(runFailure(err))
		}
		rs, err := n.Store.Results(ctx, id)
		if err != nil {
			return fail(verdict.InfraFailure, err)
		}
		tonight = append(tonight, rs...)
		if look == 1 {
			firstLook = rs
			n.provenance(res, rs)
			res.Notes = append(res.Notes, fallbackNotes(cfg)...)
			// A night that failed on its cells returns here, before
			// the debug pass (see debugPass: it has no verdict to
			// confirm).
			known = n.knownTitles(ctx, experiment, id, tonight)
			if o, err := cellFailures(tonight, known); err != nil {
				return fail(o, err)
			}
			if base == nil {
				if base, err = n.lastGood(ctx, experiment, id, tonight); err != nil {
					return fail(verdict.InfraFailure, err)
				}
			}
			if base == nil {
				res.Outcome = verdict.FirstNight
				res.Notes = append(res.Notes, "no good night of "+experiment+" measured alike yet: tonight is the baseline")
				n.markGood(ctx, res, "first night")
				n.debugPass(ctx, res, cfg, sel)
				return res
			}
			res.BaselineID, res.Baseline = base.run.ID, base.why
			base.known = known
		}
		grey, err := n.judgeLook(cfg, base, tonight, res)
		if err != nil {
			return fail(verdict.InfraFailure, err)
		}
		budget := judging.BudgetOf(cfg)
		// A further look is another run as the first: as many boots.
		afford := budget.Afford(n.now, began, judging.SpentOn(firstLook, 0).Boots,
			func() ([]*results.Result, error) { return tonight, nil })
		stop, over, err := n.looks().Next(look, grey, afford)
		if err != nil {
			return fail(verdict.InfraFailure, err)
		}
		if stop != "" {
			if budget.Bounded() {
				looksTaken(res, look, looks, stop, over, alpha)
			}
			break
		}
		res.Notes = append(res.Notes, fmt.Sprintf("look %d: %s in the grey zone (q in [%.3f, %.2f)): %d more repetition(s) of every variant", look, strings.Join(grey, ", "), alpha, n.GreyUpper, cfg.Repetitions))
		n.report("nightly %s: grey zone (%s): measuring again", experiment, strings.Join(grey, ", "))
	}
	if o, err := cellFailures(tonight, known); err != nil {
		return fail(o, err)
	}
	handOff(ctx, res, HandoffSpec{Experiment: experimentArg(named), GitTree: cfg.Kernel.GitTree, Base: base.results, Tonight: tonight})
	n.markJudged(ctx, res)
	n.shifts(ctx, res, experiment, tonight)
	n.debugPass(ctx, res, cfg, sel)
	return res
}

// looksTaken records in res how a night within a budget took its looks
// (look of looks, stopped for stop; over, the round the budget refused),
// every look judged at alpha: its JSON's looks, and notes.
func looksTaken(res *nightreport.Result, look, looks int, stop judging.Stop, over *judging.Over, alpha float64) {
	res.Looks = &nightreport.Looks{Taken: look, Planned: looks, Stopped: string(stop)}
	if over != nil {
		res.Looks.Budget = format.BudgetStop(over.Boots, judging.Minutes(over.Time), over.Exceeds, look, looks, "")
		res.Notes = append(res.Notes, res.Looks.Budget)
	}
	res.Notes = append(res.Notes, format.LooksTaken(look, looks, stop.Say(), alpha))
}

// onBranch points cfg's kernel at the tip of the night's branch and
// returns the commit it is.
func (n *Night) onBranch(ctx context.Context, cfg *config.Config) (string, error) {
	if cfg.Kernel.GitTree == "" {
		return "", errors.New("--branch needs kernel.git_tree (the repository the branch is in)")
	}
	cfg.Kernel.Source, cfg.Kernel.GitRef = "git", n.Branch
	return (kernel.GitSource{Tree: cfg.Kernel.GitTree, Ref: n.Branch}).Commit(ctx)
}

// measureLook runs one look's cells (the first look resumes an
// interrupted run when asked to) and returns the run's id, which res
// keeps when there is one.
func (n *Night) measureLook(ctx context.Context, cfg *config.Config, sel *variants.Selection, experiment string, look int, res *nightreport.Result) (int64, error) {
	var id, prev int64
	var err error
	if look == 1 {
		prev = n.resumable(ctx, experiment)
	}
	if prev != 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("resumed run %d, interrupted: its completed cells are kept", prev))
		n.report("nightly %s: resuming run %d", experiment, prev)
		id, err = prev, n.Runner.Resume(ctx, cfg, sel, prev)
	} else {
		id, err = n.Runner.Run(ctx, cfg, sel)
	}
	if id != 0 {
		res.RunIDs = append(res.RunIDs, id)
		if look > 1 {
			n.markLook(ctx, res, id, look)
		}
	}
	return id, err
}

// markLook records that run id is look number look of tonight's night,
// so that the trend pools it into the night (shifts), never counts it as
// a night of its own.
func (n *Night) markLook(ctx context.Context, res *nightreport.Result, id int64, look int) {
	why := fmt.Sprintf("look %d of the night of run %d (grey zone)", look, res.RunIDs[0])
	if err := n.Store.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkLook, Who: n.Who, Reason: why}); err != nil {
		res.Notes = append(res.Notes, "could not mark run as a look of tonight's night: "+err.Error())
	}
}

// runFailure is the night's outcome when its run failed: a kernel that
// does not build or does not fit the experiment is the kernel's failure,
// anything else the harness's.
func runFailure(err error) (verdict.Night, error) {
	var be *kernel.BuildError
	var bbe *pipeline.BaselineBuildError
	if errors.As(err, &be) || errors.As(err, &bbe) {
		return verdict.KernelFailure, fmt.Errorf("tonight's kernel does not build: %w", err)
	}
	if pipeline.Refused(err) {
		// The preparation's up-front check: tonight's tree moved
		// where the experiment's patches or primary metric do not
		// follow. Its kernel cannot be built as the experiment
		// asks: the kernel's side, not the harness's.
		return verdict.KernelFailure, fmt.Errorf("tonight's tree does not fit the experiment (nothing was built): %w", err)
	}
	return verdict.InfraFailure, err
}

// judgeLook judges tonight's cells so far against base with the looks'
// options (each look's alpha and miss, the grey zone), sets res's cases
// and outcome, and returns what is in the grey zone.
func (n *Night) judgeLook(cfg *config.Config, base *baseline, tonight []*results.Result, res *nightreport.Result) ([]string, error) {
	opts := n.looks().Options(cfg, judging.OwnWorkload)
	j, err := JudgeKnown(base.run.ID, base.results, tonight, opts, base.known)
	if err != nil {
		return nil, err
	}
	res.Cases, res.Outcome = j.Cases, j.Outcome
	return j.Grey, nil
}

// markJudged marks a passing night good, unless a new selftest failure
// awaits confirmation.
func (n *Night) markJudged(ctx context.Context, res *nightreport.Result) {
	switch {
	case res.Outcome == verdict.NightPass && unconfirmedSelftests(res):
		// A failure seen in one boot would be the next night's baseline
		// outcome ("fail/pass"), and a real one would never be flagged.
		res.Notes = append(res.Notes, "not marked good: a new selftest failure seen in one boot awaits confirmation (see the skipped selftest cases)")
	case res.Outcome == verdict.NightPass:
		n.markGood(ctx, res, "nightly: no regression against run "+fmt.Sprint(res.BaselineID))
	}
}

// resumable is the experiment's newest run when Resume is set and that
// run was interrupted or failed; 0 otherwise.
func (n *Night) resumable(ctx context.Context, experiment string) int64 {
	if !n.Resume && len(n.ResumeRuns) == 0 {
		return 0
	}
	runs, err := n.Store.FindRuns(ctx, results.Filter{Experiment: experiment, Limit: 1})
	if err != nil || len(runs) == 0 {
		return 0
	}
	if !n.Resume && !slices.Contains(n.ResumeRuns, runs[0].ID) {
		return 0
	}
	if s := runs[0].Status; s == results.RunInterrupted || s == results.RunFailed {
		return runs[0].ID
	}
	return 0
}

// CheckResume refuses a ResumeRuns id that the night would not resume:
// a run of none of tonight's experiments, not its experiment's newest
// run, or one that was neither interrupted nor failed.
func (n *Night) CheckResume(ctx context.Context, experiments []string) error {
	if len(n.ResumeRuns) == 0 {
		return nil
	}
	names := n.experimentNames(experiments)
	for _, id := range n.ResumeRuns {
		run, err := n.Store.GetRun(ctx, id)
		if err != nil {
			return fmt.Errorf("--resume %d: %w", id, err)
		}
		if !names[run.Experiment] {
			return fmt.Errorf("--resume %d: it is a run of %s, which tonight does not run", id, run.Experiment)
		}
		if !run.Status.Resumable() {
			return fmt.Errorf("--resume %d: it is %s, not interrupted or failed (a running one is marked interrupted once its kregress is gone)", id, run.Status)
		}
		latest, err := n.Store.FindRuns(ctx, results.Filter{Experiment: run.Experiment, Limit: 1})
		if err != nil {
			return err
		}
		if len(latest) > 0 && latest[0].ID != id {
			return fmt.Errorf("--resume %d: run %d of %s is newer; only an experiment's newest run is resumed", id, latest[0].ID, run.Experiment)
		}
	}
	return nil
}

// CheckBaseline refuses a Baseline (--baseline RUN) that the night
// cannot use, before anything runs: a run the store does not have, or a
// run of one experiment on a night that runs others too. Each experiment
// is compared with a run of its own, so a named baseline belongs to one
// experiment's night; the others used to run whole and then fail.
func (n *Night) CheckBaseline(ctx context.Context, experiments []string) error {
	if n.Baseline == 0 {
		return nil
	}
	run, err := n.Store.GetRun(ctx, n.Baseline)
	if err != nil {
		return fmt.Errorf("--baseline %d: %w", n.Baseline, err)
	}
	for _, name := range slices.Sorted(maps.Keys(n.experimentNames(experiments))) {
		if name != run.Experiment {
			return fmt.Errorf("--baseline %d is a run of %s, but tonight also runs %s: name only %s's experiment with --baseline", run.ID, run.Experiment, name, run.Experiment)
		}
	}
	return nil
}

// experimentNames are the names of the experiments tonight runs, as
// their runs record them (Check has refused any that does not load).
func (n *Night) experimentNames(experiments []string) map[string]bool {
	names := map[string]bool{}
	for _, e := range experiments {
		if cfg, err := n.Load(e); err == nil {
			names[cfg.Experiment] = true
		}
	}
	return names
}

// fallbackNotes is, for the night's verdict, the warning of a
// preparation that judged the workload's fallback primary metric (cfg
// says so once the run is prepared): the verdict is about another metric.
func fallbackNotes(cfg *config.Config) []string {
	if cfg.PrimaryFallback == "" {
		return nil
	}
	return []string{progress.Warning(cfg.PrimaryFallback).String()}
}

func (n *Night) provenance(res *nightreport.Result, rs []*results.Result) {
	for _, r := range rs {
		if p := r.Provenance; p.ConfigSHA256 != "" {
			if p.GitCommit != "" {
				res.Commit, res.Describe = p.GitCommit, p.GitDescribe
			} else if res.Commit == "" {
				res.Describe = p.SourceID
			}
			res.ConfigSHA = p.ConfigSHA256
			return
		}
	}
}

// cellFailures: a cell whose kernel failed makes the night a kernel
// failure (with its console tail); an infrastructure cell, an infra one.
// A failed cell whose every kernel report is a title good nights printed
// (known) is a known flake: it is left to the judge, which weighs
// tonight's failure rate against the baseline's.
func cellFailures(rs []*results.Result, known compare.KnownTitles) (verdict.Night, error) {
	for _, r := range rs {
		if r.Status.KernelFailure() && !knownFlake(r, known) {
			return verdict.KernelFailure, fmt.Errorf("%s rep %d: %s: %s", r.Variant, r.Repetition, r.Status, r.Error)
		}
	}
	for _, r := range rs {
		if r.Status.Infra() {
			return verdict.InfraFailure, fmt.Errorf("%s rep %d: %s: %s", r.Variant, r.Repetition, r.Status, r.Error)
		}
	}
	return verdict.NightPass, nil
}

func (n *Night) markGood(ctx context.Context, res *nightreport.Result, why string) {
	for _, id := range res.RunIDs {
		if err := n.Store.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkGood, Who: n.Who, Reason: why}); err != nil {
			res.Notes = append(res.Notes, "could not mark run good: "+err.Error())
		}
	}
}

// Judgement is the verdict on one look of a night: its cases, its
// outcome (NightPass, NightUnjudged, NightRegression, or InfraFailure
// when a variant was unmeasured) and the metrics to measure again.
type Judgement struct {
	Cases   []nightreport.Case
	Outcome verdict.Night
	// Grey: variant/metric in the grey zone (alpha <= q < the options'
	// GreyUpper) or unjudged (more samples may decide them).
	Grey []string
}

// Unsure is what the night left for another look (judging.Judged).
func (j *Judgement) Unsure() []string { return j.Grey }

// Judge compares tonight with the baseline run baseID per variant, every
// variant's metrics one false-discovery family at opts.Alpha (the night
// fails on any). A night whose primary metrics (or, with none, any judged
// metric) could not reach alpha is NightUnjudged: not good, never a baseline.
// Metrics with q in [alpha, opts.GreyUpper) are grey: measured again.
func Judge(baseID int64, base, tonight []*results.Result, opts compare.Options) (*Judgement, error) {
	return JudgeKnown(baseID, base, tonight, opts, nil)
}

// JudgeKnown is Judge with the kernel report titles a history of good
// nights printed (compare.KnowTitles): those are judged as a rate, not as
// new signatures.
func JudgeKnown(baseID int64, base, tonight []*results.Result, opts compare.Options, known compare.KnownTitles) (*Judgement, error) {
	j := &Judgement{Outcome: verdict.NightPass}
	var diffs []*compare.Diff
	var names []string
	for _, v := range results.VariantNames(tonight) {
		bv, tv := results.OfVariant(base, v), results.OfVariant(tonight, v)
		if len(bv) == 0 {
			j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: "baseline", Status: nightreport.CaseSkipped, Message: fmt.Sprintf("the baseline run %d has no %s cells", baseID, v)})
			continue
		}
		d, err := compare.CompareGroups([]compare.Group{
			{Label: fmt.Sprintf("baseline run %d", baseID), Results: bv},
			{Label: "tonight", Results: tv},
		}, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v, err)
		}
		diffs, names = append(diffs, d), append(names, v)
	}
	// Every variant's metrics are one family: the night fails on any.
	compare.Rejudge(diffs...)
	compare.KnowTitles(known, diffs...)
	unjudged, anyPrimary := false, false
	for _, d := range diffs {
		for _, m := range d.Metrics["tonight"] {
			anyPrimary = anyPrimary || (m.Primary && m.Verdict != verdict.Info)
		}
	}
	for i, d := range diffs {
		j.judgeVariant(names[i], d, anyPrimary)
		unjudged = unjudged || len(d.Unjudged()) > 0
	}
	if j.Outcome == verdict.NightPass && unjudged {
		j.Outcome = verdict.NightUnjudged
	}
	return j, nil
}

// judgeVariant adds the cases of variant v's diff d to j: its failure
// rate, its metrics (the grey ones to measure again), new kernel reports,
// selftests and the metrics tonight could not measure.
func (j *Judgement) judgeVariant(v string, d *compare.Diff, anyPrimary bool) {
	fr := d.Failures["tonight"]
	c := nightreport.Case{Variant: v, Name: "failure rate", Status: nightreport.CasePass, Message: fr.Reason, Kind: nightreport.KindFailureRate}
	switch fr.Verdict {
	case verdict.Regression:
		c.Status = nightreport.CaseFailure
	case verdict.Unmeasured:
		// Nothing of tonight was seen: not a pass, the host's
		// failure (exit 1), whatever else is judged.
		c.Status = nightreport.CaseError
		c.Message = "unmeasured: " + fr.Reason
		j.Outcome = verdict.Worse(j.Outcome, verdict.InfraFailure)
	}
	j.Cases = append(j.Cases, c)
	for _, note := range d.LoadNotes() {
		j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: "host load", Status: nightreport.CaseSkipped, Message: note})
	}
	for _, m := range d.Metrics["tonight"] {
		if m.Verdict == verdict.Info {
			if d.Options.GateOnly && m.Direction != agentproto.Informational {
				j.Cases = append(j.Cases, shownCase(v, m))
			}
			continue
		}
		if m.Unsure(d.Options.GreyUpper, anyPrimary) {
			j.Grey = append(j.Grey, v+"/"+m.Name)
		}
		j.Cases = append(j.Cases, metricCase(v, m))
	}
	for _, r := range d.Reports["tonight"] {
		if r.New {
			j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: "kernel report: " + r.Title, Status: nightreport.CaseFailure, Message: r.String(), Detail: r.Excerpt, Kind: nightreport.KindKernelReport})
		}
	}
	for _, f := range d.SelftestFlags() {
		j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: "selftests", Status: nightreport.CaseFailure, Message: f, Kind: nightreport.KindSelftests})
	}
	// Seen in one boot only: not a regression yet, but not hidden.
	for _, f := range d.SelftestUnconfirmed() {
		j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: unconfirmedCase, Status: nightreport.CaseSkipped, Message: f})
	}
	// Metrics tonight's kernel cannot produce have no case of their
	// own: said as skipped (never a pass, never a failure).
	for _, l := range d.UnavailableLines() {
		if l.Set == "tonight" {
			j.Cases = append(j.Cases, nightreport.Case{Variant: v, Name: "not measured", Status: nightreport.CaseSkipped, Message: l.Reason + ": " + strings.Join(l.Metrics, ", ")})
		}
	}
	if len(d.Failing()) > 0 {
		j.Outcome = verdict.Worse(j.Outcome, verdict.NightRegression)
	}
}

// metricCase is the case of variant v's metric m.
func metricCase(v string, m compare.Metric) nightreport.Case {
	c := nightreport.Case{Variant: v, Name: m.Name, Status: nightreport.CasePass,
		Message: fmt.Sprintf("%s %s (p=%.3f, q=%.3f, n=%d+%d)", m.Name, num.DeltaQuiet(m.DeltaPct), m.P, m.Q, m.Base.N, m.Cand.N), Kind: nightreport.KindMetric}
	switch {
	case m.Verdict == verdict.Regression:
		c.Status = nightreport.CaseFailure
		c.Metric = compare.ChangeOf(&m)
	case m.LoadHeld:
		// Tonight's host was not as busy as the baseline night's: on
		// the host's clock the change may be the load's (the night's
		// "host load" case says how far apart).
		c.Status = nightreport.CaseSkipped
		c.Message = "UNJUDGED, not called a regression: the host's load differed from the baseline night's: " + c.Message
	case m.Verdict == verdict.Unjudged:
		c.Status = nightreport.CaseSkipped
		what := "unjudged"
		switch {
		case m.Seen != "":
			what = "UNJUDGED, seen to change (" + m.Seen + ")"
		case m.NotRuledOut:
			what = "UNJUDGED, not ruled out (could be " + compare.WorstText(&m) + ")"
		}
		c.Message = fmt.Sprintf("%s: %s (n=%d+%d in a family of %d cannot reach q < %.3g; %d per side would)", what, c.Message, m.Base.N, m.Cand.N, m.Family, m.Alpha, compare.NeededReps(m.Family, m.Alpha))
	case m.NotRuledOut:
		// Not significant, but its boots leave the margin's regression
		// possible: not a pass (the night is UNJUDGED), not a failure.
		c.Status = nightreport.CaseSkipped
		c.Message = fmt.Sprintf("UNJUDGED, not ruled out: %s; it could be %s (n=%d+%d: more boots would tell)", c.Message, compare.WorstText(&m), m.Base.N, m.Cand.N)
	case m.Base.N < 2 || m.Cand.N < 2:
		c.Status = nightreport.CaseSkipped
	case m.Verdict == verdict.NoChange && !math.IsNaN(m.CouldSeePct):
		c.Message += "; " + compare.CouldSeeText(m.CouldSeePct, m.Base.N, m.Cand.N, m.Family)
	}
	return c
}

// shownCase is variant v's metric m of a gate-only experiment: shown
// with its change against the baseline night, as `run` shows it, so a
// night's reports do not silently drop what the user measures; skipped,
// since a figure nobody judged is neither a pass nor a failure.
func shownCase(v string, m compare.Metric) nightreport.Case {
	return nightreport.Case{Variant: v, Name: m.Name, Status: nightreport.CaseSkipped, Kind: nightreport.KindMetric,
		Message: fmt.Sprintf("%s %s (shown, not judged: gate_only; n=%d+%d)", m.Name, num.DeltaQuiet(m.DeltaPct), m.Base.N, m.Cand.N)}
}

// unconfirmedSelftests: the judge found a new selftest failure seen in
// one boot only.
func unconfirmedSelftests(res *nightreport.Result) bool {
	for _, c := range res.Cases {
		if c.Name == unconfirmedCase {
			return true
		}
	}
	return false
}

// unconfirmedCase names the case of a selftest failure seen in one boot.
const unconfirmedCase = "selftests (unconfirmed)"

// baseline is the night tonight is compared with.
type baseline struct {
	run     *results.Run
	results []*results.Result
	why     string
	// known: the kernel report titles of the good nights before tonight
	// (knownTitles), judged as a rate rather than as new.
	known compare.KnownTitles
}

// lastGood finds the newest good or accepted night of experiment before
// tonight measured alike (goodNights): the baseline, every look's boots
// pooled.
func (n *Night) lastGood(ctx context.Context, experiment string, tonightID int64, tonight []*results.Result) (*baseline, error) {
	nights, err := n.goodNights(ctx, experiment, tonightID, tonight, 1)
	if err != nil || len(nights) == 0 {
		return nil, err
	}
	return &nights[0], nil
}

// goodNights are experiment's newest complete nights before tonight
// (run ids below tonightID), at most limit, newest first, that were
// marked good or accepted and measured alike (compare.Mismatches empty
// for every variant tonight has). A night is its first run with the runs
// of its further looks (marked MarkLook, the runs right after it): its
// results are every look's, as the night judged them, and its run is the
// first. A look's run alone is never a night, whichever run of the night
// carries the good or accepted mark.
func (n *Night) goodNights(ctx context.Context, experiment string, tonightID int64, tonight []*results.Result, limit int) ([]baseline, error) {
	runs, err := n.Store.FindRuns(ctx, results.Filter{Experiment: experiment, Status: results.RunComplete})
	if err != nil {
		return nil, err
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	var out []baseline
	// The looks seen since the last night's first run: newest first, they
	// come before the run they belong to.
	var looks []*results.Run
	var lookWhy string
	for _, run := range runs {
		if len(out) == limit {
			break
		}
		if run.ID >= tonightID {
			continue
		}
		marks, err := n.Store.Marks(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(marks, func(m results.Mark) bool { return m.Kind == results.MarkLook }) {
			looks = append(looks, run)
			lookWhy = cmp.Or(lookWhy, judgement(marks))
			continue
		}
		nightLooks, why := looks, cmp.Or(judgement(marks), lookWhy)
		looks, lookWhy = nil, ""
		if why == "" {
			continue
		}
		rs, err := n.Store.Results(ctx, run.ID)
		if err != nil {
			return nil, err
		}
		for i := len(nightLooks) - 1; i >= 0; i-- {
			lrs, err := n.Store.Results(ctx, nightLooks[i].ID)
			if err != nil {
				return nil, err
			}
			rs = append(rs, lrs...)
		}
		if alike(rs, tonight) {
			out = append(out, baseline{run: run, results: rs, why: why})
		}
	}
	return out, nil
}

// judgement says why a run may be a baseline ("" when it may not): the
// newest accepted or good mark.
func judgement(marks []results.Mark) string {
	for i := len(marks) - 1; i >= 0; i-- {
		m := marks[i]
		switch m.Kind {
		case results.MarkAccepted:
			return fmt.Sprintf("accepted by %s on %s: %s", m.Who, m.At.Format("2006-01-02"), m.Reason)
		case results.MarkGood:
			return "good night (" + m.Reason + ")"
		}
	}
	return ""
}

func alike(a, b []*results.Result) bool {
	va, vb := results.VariantNames(a), results.VariantNames(b)
	if strings.Join(va, ",") != strings.Join(vb, ",") {
		return false
	}
	for _, v := range va {
		if len(compare.Mismatches(results.OfVariant(a, v), results.OfVariant(b, v))) > 0 {
			return false
		}
	}
	return true
}

func (n *Night) namedBaseline(ctx context.Context, experiment string) (*baseline, error) {
	run, err := n.Store.GetRun(ctx, n.Baseline)
	if err != nil {
		return nil, err
	}
	if run.Experiment != experiment {
		return nil, fmt.Errorf("baseline run %d is of experiment %s, not %s", run.ID, run.Experiment, experiment)
	}
	rs, err := n.Store.Results(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	return &baseline{run: run, results: rs, why: "named on the command line"}, nil
}

// ShiftsOf finds the change points of each of a night's series (every
// variant's every judged metric, the median of each night), all judged
// as one family: a night in which nothing changed lists any shift with
// probability at most changepoint's alpha (make calibrate measures it).
func ShiftsOf(series [][]float64) [][]changepoint.Point {
	out := make([][]changepoint.Point, len(series))
	for i, xs := range series {
		out[i] = changepoint.Detect(xs, changepoint.Options{Family: len(series)})
	}
	return out
}

// shifts runs change-point detection over the history of this
// experiment's comparable complete runs: per variant and judged metric,
// the median of each night, its looks' boots pooled (a run marked as a
// look belongs to the night of the run before it: the nightly measures a
// night's looks one after the other).
func (n *Night) shifts(ctx context.Context, res *nightreport.Result, experiment string, tonight []*results.Result) {
	runs, err := n.Store.FindRuns(ctx, results.Filter{Experiment: experiment, Status: results.RunComplete})
	if err != nil {
		res.Notes = append(res.Notes, "history: "+err.Error())
		return
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	type night struct {
		run   *results.Run
		rs    []*results.Result
		looks []int64 // the runs of its further looks
	}
	var nights []night
	baseline := map[int64]bool{}
	for _, run := range runs {
		rs, err := n.Store.Results(ctx, run.ID)
		if err != nil || len(rs) == 0 || !alike(rs, tonight) {
			continue
		}
		marks, err := n.Store.Marks(ctx, run.ID)
		if err == nil && len(nights) > 0 && slices.ContainsFunc(marks, func(m results.Mark) bool { return m.Kind == results.MarkLook }) {
			last := &nights[len(nights)-1]
			last.rs = append(slices.Clip(last.rs), rs...)
			last.looks = append(last.looks, run.ID)
			continue
		}
		nights = append(nights, night{run: run, rs: rs})
		if err == nil && judgement(marks) != "" {
			baseline[run.ID] = true
		}
	}
	// Every series first: they are judged as one family (changepoint's
	// Family), so a night in which nothing changed lists any shift with
	// probability at most alpha, not one series' alpha each.
	type series struct {
		tr trendreport.Trend
		xs []float64
		at []night
	}
	var all []series
	for _, v := range results.VariantNames(tonight) {
		for _, metric := range judgedMetrics(results.OfVariant(tonight, v)) {
			s := series{tr: trendreport.Trend{Experiment: experiment, Variant: v, Metric: metric, Unit: unitOf(tonight, metric)}}
			for _, nt := range nights {
				if x, ok := metricMedian(results.OfVariant(nt.rs, v), metric); ok {
					s.xs, s.at = append(s.xs, x), append(s.at, nt)
					s.tr.Points = append(s.tr.Points, trendreport.Point{RunID: nt.run.ID, Night: nt.run.StartedAt.Format("2006-01-02 15:04"), Value: x, Baseline: baseline[nt.run.ID], Looks: nt.looks})
				}
			}
			all = append(all, s)
		}
	}
	xss := make([][]float64, len(all))
	for i, s := range all {
		xss[i] = s.xs
	}
	points := ShiftsOf(xss)
	for i, s := range all {
		tr := s.tr
		for _, p := range points[i] {
			nt := s.at[p.Index]
			res.Shifts = append(res.Shifts, nightreport.Shift{Variant: tr.Variant, Metric: tr.Metric, RunID: nt.run.ID, Night: nt.run.StartedAt.Format("2006-01-02 15:04"),
				Before: p.Before, After: p.After, Pct: p.Change(), P: p.P})
			tr.Shifts = append(tr.Shifts, nt.run.ID)
		}
		res.Trends = append(res.Trends, tr)
	}
}

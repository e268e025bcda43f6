package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
)

// Spec is what a bisect searches; stored as JSON with the bisect.
type Spec struct {
	Experiment string `json:"experiment"`
	GitTree    string `json:"git_tree"`
	Metric     string `json:"metric"`
	Good       string `json:"good"` // as given (commit mode)
	Bad        string `json:"bad"`
	// Names are the points in order, first good, last bad: commits, or
	// in series mode "base", "1/4", "2/4", ...
	Names  []string         `json:"names"`
	Points map[string]Point `json:"points"`
	// Titles: a point's subject and author, for the report.
	Titles map[string]string `json:"titles"`
	Series bool              `json:"series,omitempty"`
	// Crash: bad means the kernel fails (crashes, hangs, does not boot).
	Crash bool    `json:"crash,omitempty"`
	Alpha float64 `json:"alpha"`
	Reps  []int   `json:"reps"`
	// Variant: the experiment's variant whose patches every point
	// carries on top of its commit (variant.go); empty: none.
	Variant string `json:"variant,omitempty"`
	// Origin: the nightly regression this bisect was handed; its
	// culprit report states it.
	Origin *bisectreport.Origin `json:"origin,omitempty"`
}

// CommitRange resolves good and bad in tree to the commits from good to
// bad along bad's first parents (git rev-list --first-parent), with their
// subjects and authors.
func CommitRange(ctx context.Context, tree, good, bad string) (*Spec, error) {
	g, err := (kernel.GitSource{Tree: tree, Ref: good}).Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("--good: %w", err)
	}
	b, err := (kernel.GitSource{Tree: tree, Ref: bad}).Commit(ctx)
	if err != nil {
		return nil, fmt.Errorf("--bad: %w", err)
	}
	if g == b {
		return nil, fmt.Errorf("--good %s and --bad %s are the same commit %.12s: nothing to bisect", good, bad, g)
	}
	if err := exec.CommandContext(ctx, "git", "--git-dir", gitDir(tree), "merge-base", "--is-ancestor", g, b).Run(); err != nil {
		return nil, fmt.Errorf("--good %s (%.12s) is not an ancestor of --bad %s (%.12s): the wrong order, or unrelated commits", good, g, bad, b)
	}
	out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir(tree), "log", "--first-parent", "--reverse", "--format=%H%x09%s%x09%an <%ae>", g+".."+b).Output()
	if err != nil {
		return nil, fmt.Errorf("git log %s..%s: %w", good, bad, err)
	}
	spec := &Spec{GitTree: tree, Good: good, Bad: bad, Names: []string{g}, Points: map[string]Point{g: {Ref: g}}, Titles: map[string]string{g: "(good) " + good}}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		spec.Names = append(spec.Names, f[0])
		spec.Points[f[0]] = Point{Ref: f[0]}
		spec.Titles[f[0]] = f[1] + " (" + f[2] + ")"
	}
	return spec, nil
}

// SeriesRange makes the points of a series bisect: base, base + patch 1,
// base + patches 1-2, ..., base + the whole series. Each patch is copied
// into dir (an mbox member has no file of its own), so a resumed bisect
// still finds them.
func SeriesRange(tree, base, series, dir string) (*Spec, error) {
	ps, err := patches.ReadSeries(series)
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s holds no patch", series)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	spec := &Spec{GitTree: tree, Good: base, Bad: series, Series: true, Points: map[string]Point{}, Titles: map[string]string{}}
	var paths []string
	for i := 0; i <= len(ps); i++ {
		name := fmt.Sprintf("%d/%d", i, len(ps))
		if i > 0 {
			p := ps[i-1]
			path := filepath.Join(dir, fmt.Sprintf("%04d-%.12s.patch", i, p.SHA256))
			if err := os.WriteFile(path, p.Data, 0o644); err != nil {
				return nil, err
			}
			paths = append(paths, path)
			spec.Titles[name] = fmt.Sprintf("%s (%s)", p.Subject, p.Author)
		} else {
			spec.Titles[name] = "(good) " + base
		}
		spec.Names = append(spec.Names, name)
		spec.Points[name] = Point{Ref: base, Patches: append([]string(nil), paths...)}
	}
	return spec, nil
}

func gitDir(tree string) string {
	if out, err := exec.Command("git", "-C", tree, "rev-parse", "--absolute-git-dir").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	return tree
}

// Runner runs a bisect and keeps it in the store after every step.
type Runner struct {
	Store  results.Store
	Prober Prober
	Report progress.Reporter
	// NoConfirm skips the confirmation by revert (confirm.go) after a
	// culprit is named.
	NoConfirm bool
	// Revert makes the revert point; nil: RevertPoint.
	Revert Reverter
	// Speculate: builds ahead of the search (SpeculationFor); zero: none.
	Speculate Speculation
}

// Start stores a new bisect of spec and runs it.
func (s *Runner) Start(ctx context.Context, spec *Spec) (*results.Bisect, *Result, error) {
	data, _ := json.Marshal(spec)
	b := &results.Bisect{Experiment: spec.Experiment, Status: results.RunRunning, Spec: string(data)}
	if err := s.Store.CreateBisect(ctx, b); err != nil {
		return nil, nil, err
	}
	s.Report("bisect %d: %d points from %s to %s, metric %s", b.ID, len(spec.Names), spec.Good, spec.Bad, spec.Metric)
	res, err := s.run(ctx, b, spec, nil, nil)
	return b, res, err
}

// Resume continues bisect id from its stored steps.
func (s *Runner) Resume(ctx context.Context, id int64) (*results.Bisect, *Spec, *Result, error) {
	b, err := s.Store.GetBisect(ctx, id)
	if err != nil {
		return nil, nil, nil, err
	}
	spec, prev, err := Load(b)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.Status == results.RunComplete {
		return b, spec, prev, nil
	}
	var steps []Step
	var merge *Merge
	if prev != nil {
		steps, merge = prev.Steps, prev.Merge
	}
	s.Report("bisect %d: resuming after %d step(s)", b.ID, len(steps))
	res, err := s.run(ctx, b, spec, steps, merge)
	return b, spec, res, err
}

// Load decodes a stored bisect.
func Load(b *results.Bisect) (*Spec, *Result, error) {
	var spec Spec
	if err := json.Unmarshal([]byte(b.Spec), &spec); err != nil {
		return nil, nil, fmt.Errorf("bisect %d: spec: %w", b.ID, err)
	}
	if b.State == "" {
		return &spec, nil, nil
	}
	var res Result
	if err := json.Unmarshal([]byte(b.State), &res); err != nil {
		return nil, nil, fmt.Errorf("bisect %d: state: %w", b.ID, err)
	}
	if spec.Crash {
		res.Endpoints.fromMedians(&res)
	}
	return &spec, &res, nil
}

func (s *Runner) run(ctx context.Context, b *results.Bisect, spec *Spec, resume []Step, merge *Merge) (*Result, error) {
	save := func(r *Result) {
		data, _ := json.Marshal(r)
		b.State = string(data)
		s.Store.SaveBisect(context.Background(), b)
	}
	opts := Options{Alpha: spec.Alpha, Reps: spec.Reps, Crash: spec.Crash, Report: s.Report, Range: len(spec.Names) - 1, Speculate: s.Speculate}
	res, err := Run(ctx, s.Prober, spec.Names, opts, resume, save)
	if err == nil && res != nil && res.Culprit != "" {
		err = s.descend(ctx, spec, res, opts, merge, save)
	}
	if err == nil && res != nil && res.Culprit != "" && res.Confirmation == nil && !s.NoConfirm {
		// Stored before it runs: an interrupted confirmation resumes
		// with the culprit found (Run replays the steps, booting none).
		save(res)
		revert := s.Revert
		if revert == nil {
			revert = RevertPoint
		}
		if cerr := Confirm(ctx, s.Prober, revert, spec, res, opts); cerr != nil {
			err = fmt.Errorf("bisect: confirming %.12s by revert: %w", res.Culprit, cerr)
		} else {
			s.Report("bisect: %.12s %s", res.Culprit, res.Confirmation)
		}
	}
	b.FinishedAt = time.Now().UTC()
	switch {
	case err == nil || errors.Is(err, ErrNotReproduced):
		b.Status = results.RunComplete
	case ctx.Err() != nil:
		b.Status = results.RunInterrupted
	default:
		b.Status = results.RunFailed
	}
	if res != nil {
		save(res)
	} else {
		s.Store.SaveBisect(context.Background(), b)
	}
	return res, err
}

// Summarize is the bisect's state as its text report and its listing
// print it (results/format.WriteBisectSummary, format.BisectLine): id's
// spec, its search state res (nil when it stopped before the endpoints
// were measured) and err, why it stopped.
func Summarize(id int64, spec *Spec, res *Result, err error) *bisectreport.Summary {
	s := &bisectreport.Summary{ID: id, Experiment: spec.Experiment, Variant: spec.Variant, Metric: spec.Metric,
		Good: spec.Good, Bad: spec.Bad, Points: len(spec.Names), Series: spec.Series, Crash: spec.Crash,
		NotReproduced: errors.Is(err, ErrNotReproduced)}
	if len(spec.Names) > 0 {
		s.First, s.Last = spec.Names[0], spec.Names[len(spec.Names)-1]
	}
	if spec.Origin != nil {
		s.FromNightly, s.NightRunIDs = true, spec.Origin.NightRunIDs
	}
	if err != nil {
		s.Err = err.Error()
	}
	if res == nil {
		return s
	}
	point := func(n string) bisectreport.Point {
		t, ok := spec.Titles[n]
		if !ok && res != nil && res.Merge != nil {
			t = res.Merge.Titles[n]
		}
		return bisectreport.Point{Name: n, Title: t}
	}
	s.Started, s.Reproduced = true, res.Reproduced
	e := res.Endpoints
	s.Endpoints = bisectreport.Endpoints{GoodMedian: e.Median, BadMedian: res.BadMedian, P: e.PBad,
		GoodBoots: len(endpointSamples(res, true)), BadBoots: len(endpointSamples(res, false)),
		GoodCrashes: e.GoodCrashes, BadCrashes: e.BadCrashes}
	if spec.Crash {
		s.Endpoints.GoodBoots, s.Endpoints.BadBoots = e.N, bootsOfEndpoint(res)
		if res.CrashRate != nil && res.CrashRate.Boots > 0 {
			s.Endpoints.CrashRate = res.CrashRate.String()
		}
	}
	if res.Culprit != "" {
		s.Culprit = point(res.Culprit)
	}
	for _, n := range res.Range {
		s.Candidates = append(s.Candidates, point(n))
	}
	s.Confidence, s.ConfidenceWhy, s.Measured = res.Confidence, res.ConfidenceWhy, res.Measured
	if c := res.Confirmation; c != nil {
		s.Confirmation = &bisectreport.Confirmation{Outcome: c.Outcome, Revert: c.Revert, Why: c.Why}
		if c.Step != nil && c.Step.N > 0 {
			s.RevertFigs = &bisectreport.Figures{Median: c.Step.Median, N: c.Step.N, RunIDs: c.Step.RunIDs}
		}
	}
	s.Merge, s.MoreChanges = res.Merge.String(), res.MoreChanges.String()
	if m := res.MoreChanges; m != nil && !spec.Series {
		for _, r := range m.Remaining {
			s.MoreChanges += fmt.Sprintf("\n  to bisect %.12s..%.12s: %s", r[0], r[1], bisectCommand(spec, r[0], r[1]))
		}
	}
	for _, m := range res.Metrics {
		s.Metrics = append(s.Metrics, m.String())
	}
	if sp := res.Speculation; sp != nil {
		s.Speculation = fmt.Sprintf("%d step(s) ahead: %s", sp.Levels, sp)
	}
	steps := append([]Step(nil), res.Steps...)
	if m := res.Merge; m != nil {
		// The merged branch's steps follow the first-parent search's
		// (its endpoints' step is the merge-base and second parent).
		for _, st := range m.Steps {
			if st.Index >= 0 {
				steps = append(steps, st)
			}
		}
	}
	for _, st := range steps {
		s.Steps = append(s.Steps, bisectreport.SummaryStep{Point: point(st.Commit), Endpoint: st.Index < 0,
			Verdict: st.Verdict, Why: st.Why, Figures: bisectreport.Figures{Median: st.Median, N: st.N, RunIDs: st.RunIDs},
			Crashes: st.Crashes, Test: st.Test.String()})
	}
	return s
}

func bootsOfEndpoint(res *Result) int {
	for i := range res.Steps {
		if res.Steps[i].Index == -1 {
			return bootsOf(&res.Steps[i], true)
		}
	}
	return 0
}

func endpointSamples(res *Result, good bool) []float64 {
	var out []float64
	for _, s := range res.Steps {
		if good {
			out = append(out, s.GoodSamples...)
		} else {
			out = append(out, s.BadSamples...)
		}
	}
	return out
}

// HeadCommit is the commit checked out in tree (what git bisect run left
// there).
func HeadCommit(ctx context.Context, tree string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", tree, "rev-parse", "--verify", "HEAD^{commit}").Output()
	if err != nil {
		return "", fmt.Errorf("%s: no HEAD commit: %w", tree, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// fromMedians reads a crash-mode result stored before the endpoints had
// crash counts of their own, when the counts rode in Endpoints.Median
// (good) and Result.BadMedian (bad): they move to GoodCrashes and
// BadCrashes, so every reader sees one shape. A crash-mode result has no
// medians, so non-zero ones can only be such counts.
func (e *Step) fromMedians(res *Result) {
	if e.Median == 0 && res.BadMedian == 0 {
		return
	}
	e.GoodCrashes, e.BadCrashes = int(e.Median), int(res.BadMedian)
	e.Median, res.BadMedian = 0, 0
}

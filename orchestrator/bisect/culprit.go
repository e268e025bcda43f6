package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"

	"github.com/kregress/kregress/internal/shellquote"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// CulpritReport is a bisect as a maintainer acts on it, like the 0-day
// bot's mails: what changed (with p, q, n and the smallest change the
// test sees), the culprit with its author and date, whether reverting it
// undoes the change, what it cost, the kernel configuration, and the
// commands that reproduce it. Rendered as Markdown, JSON, JUnit and a
// plain-text mail body (report_formats.go).
type CulpritReport struct {
	BisectID   int64           `json:"bisect_id"`
	Outcome    verdict.Verdict `json:"outcome"` // Culprit, NotReproduced, Inconclusive or Stopped
	Experiment string          `json:"experiment"`
	Variant    string          `json:"variant,omitempty"`
	Metric     string          `json:"metric"`
	Crash      bool            `json:"crash,omitempty"`
	Good       string          `json:"good"`
	Bad        string          `json:"bad"`
	// Commits: the points searched after good (commits, or patches).
	Commits int  `json:"commits"`
	Series  bool `json:"series,omitempty"`
	// Change: the endpoints as the bisect measured them (metric mode).
	// The bisect tests one metric, so q = p.
	Change *compare.Change `json:"change,omitempty"`
	// CrashRate: crash mode, the bad endpoint's failures.
	CrashRate string `json:"crash_rate,omitempty"`
	// Night: the nightly regression this bisect was handed, if any.
	Night   *Origin `json:"night,omitempty"`
	Culprit *Commit `json:"culprit,omitempty"`
	// Candidates: skips left these (inconclusive).
	Candidates   []string      `json:"candidates,omitempty"`
	Confidence   float64       `json:"confidence"`
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Boots: cells booted for this bisect (its steps' runs and the
	// confirmation's); Steps: the points measured.
	Boots  int          `json:"boots"`
	Steps  int          `json:"measured_steps"`
	Kernel KernelConfig `json:"kernel"`
	// Reproduce: commands that run it again, or show it.
	Reproduce []string `json:"reproduce"`
	Error     string   `json:"error,omitempty"`
}

// Commit is the culprit as git log shows it (a series patch: its mail
// headers; no describe).
type Commit struct {
	ID       string `json:"id"`
	Subject  string `json:"subject"`
	Author   string `json:"author"`
	Date     string `json:"date,omitempty"`
	Describe string `json:"describe,omitempty"`
}

// KernelConfig is the measured kernels' configuration, from the runs'
// provenance.
type KernelConfig struct {
	BaseConfig   string `json:"base_config,omitempty"`
	ConfigSHA256 string `json:"config_sha256,omitempty"`
	Preemption   string `json:"preemption,omitempty"`
	Compiler     string `json:"compiler,omitempty"`
	Accel        string `json:"accel,omitempty"`
	VCPUs        int    `json:"vcpus,omitempty"`
}

// BuildReport assembles bisect id's report from its spec, result (nil
// when it stopped before the endpoints were measured), the error it
// ended with, and its runs in store.
func BuildReport(ctx context.Context, store results.Store, id int64, spec *Spec, res *Result, runErr error) (*CulpritReport, error) {
	r := &CulpritReport{BisectID: id, Experiment: spec.Experiment, Variant: spec.Variant, Metric: spec.Metric, Crash: spec.Crash,
		Good: spec.Good, Bad: spec.Bad, Commits: len(spec.Names) - 1, Series: spec.Series, Night: spec.Origin, Reproduce: reproduce(id, spec)}
	if runErr != nil && !errors.Is(runErr, ErrNotReproduced) {
		r.Error = runErr.Error()
	}
	switch {
	case res == nil || (runErr != nil && !errors.Is(runErr, ErrNotReproduced) && res.Culprit == ""):
		r.Outcome = verdict.Stopped
	case errors.Is(runErr, ErrNotReproduced) || !res.Reproduced:
		r.Outcome = verdict.NotReproduced
	case res.Culprit != "":
		r.Outcome = verdict.Culprit
	case len(res.Range) > 0:
		r.Outcome = verdict.Inconclusive
	default:
		r.Outcome = verdict.Stopped
	}
	if res == nil {
		return r, nil
	}
	r.Confidence, r.Steps, r.Candidates = res.Confidence, res.Measured, res.Range
	if c := res.Confirmation; c != nil {
		// The report states the outcome and the revert's figures; its
		// looks stay in the bisect's state.
		cc := *c
		if c.Step != nil {
			s := *c.Step
			s.Looks, s.Samples, s.GoodSamples, s.BadSamples = nil, nil, nil, nil
			cc.Step = &s
		}
		r.Confirmation = &cc
	}
	if spec.Crash {
		if res.CrashRate != nil {
			r.CrashRate = res.CrashRate.String()
		}
	} else if end := endpointStep(res); end != nil && len(end.GoodSamples) > 0 && len(end.BadSamples) > 0 {
		r.Change = reportedChange(spec, end)
	}
	if res.Culprit != "" {
		c, err := describeCulprit(ctx, spec, res.Culprit)
		if err != nil {
			return nil, err
		}
		r.Culprit = c
	}
	var err error
	if r.Boots, r.Kernel, err = bootsAndKernel(ctx, store, res); err != nil {
		return nil, err
	}
	return r, nil
}

func endpointStep(res *Result) *Step {
	for i := range res.Steps {
		if res.Steps[i].Index == -1 {
			return &res.Steps[i]
		}
	}
	return nil
}

// reportedChange: the endpoints' test as it decided "reproduces": good's
// and bad's boots in the endpoints' looks, its p (stratified by look),
// and the MDE of a rank test at those n and that spread, at the
// endpoints' level.
func reportedChange(spec *Spec, end *Step) *compare.Change {
	good, bad := end.GoodSamples, end.BadSamples
	g, b := median(good), median(bad)
	delta := 0.0
	if g != 0 {
		delta = (b - g) / math.Abs(g) * 100
	}
	opts := Options{Alpha: spec.Alpha, Reps: spec.Reps}.withDefaults()
	mde := -1.0
	if sigma, log, ok := compare.Spread(good, bad); ok {
		m := compare.MDE(compare.PowerSpec{N1: len(good), N2: len(bad), Sigma: sigma, Log: log, Family: 1, Alpha: opts.endLevel(), Seed: 1})
		if !math.IsInf(m, 0) && !math.IsNaN(m) {
			mde = m
		}
	}
	return &compare.Change{Name: spec.Metric, Base: g, Cand: b, DeltaPct: delta, P: end.PBad, Q: end.PBad, N1: len(good), N2: len(bad), MDEPct: mde}
}

// describeCulprit: git log's view of the culprit commit, or a series
// patch's subject and author.
func describeCulprit(ctx context.Context, spec *Spec, culprit string) (*Commit, error) {
	if spec.Series {
		subject, author := splitTitle(spec.Titles[culprit])
		return &Commit{ID: culprit, Subject: subject, Author: author}, nil
	}
	gd := gitDir(spec.GitTree)
	out, err := exec.CommandContext(ctx, "git", "--git-dir", gd, "show", "-s", "--format=%H%x00%s%x00%an <%ae>%x00%aI", culprit).Output()
	if err != nil {
		return nil, fmt.Errorf("bisect: git show %.12s in %s: %w", culprit, spec.GitTree, err)
	}
	f := strings.SplitN(strings.TrimSpace(string(out)), "\x00", 4)
	if len(f) < 4 {
		return nil, fmt.Errorf("bisect: git show %.12s printed %q", culprit, out)
	}
	c := &Commit{ID: f[0], Subject: f[1], Author: f[2], Date: f[3]}
	if d, err := exec.CommandContext(ctx, "git", "--git-dir", gd, "describe", "--tags", "--always", culprit).Output(); err == nil {
		c.Describe = strings.TrimSpace(string(d))
	}
	return c, nil
}

// splitTitle splits "subject (author)" as CommitRange and SeriesRange
// write titles.
func splitTitle(t string) (subject, author string) {
	if i := strings.LastIndex(t, " ("); i >= 0 && strings.HasSuffix(t, ")") {
		return t[:i], t[i+2 : len(t)-1]
	}
	return t, ""
}

// bootsAndKernel counts the cells of every run the bisect made (each run
// once: the first midpoint shares the endpoints' runs) and reads the
// kernel configuration from the first cell that recorded it.
func bootsAndKernel(ctx context.Context, store results.Store, res *Result) (int, KernelConfig, error) {
	var kc KernelConfig
	seen := map[int64]bool{}
	var ids []int64
	add := func(s *Step) {
		for _, id := range s.RunIDs {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	for i := range res.Steps {
		add(&res.Steps[i])
	}
	if c := res.Confirmation; c != nil && c.Step != nil {
		add(c.Step)
	}
	boots := 0
	for _, id := range ids {
		counts, err := store.CountResults(ctx, id)
		if err != nil {
			return 0, kc, fmt.Errorf("bisect: run %d: %w", id, err)
		}
		for _, n := range counts {
			boots += n
		}
		if kc.ConfigSHA256 == "" {
			rs, err := store.Results(ctx, id)
			if err != nil {
				return 0, kc, fmt.Errorf("bisect: run %d: %w", id, err)
			}
			for _, r := range rs {
				if p := r.Provenance; p.ConfigSHA256 != "" {
					kc = KernelConfig{BaseConfig: p.BaseConfig, ConfigSHA256: p.ConfigSHA256, Preemption: p.Preemption, Compiler: p.Compiler, Accel: p.Accel, VCPUs: p.VCPUs}
					break
				}
			}
		}
	}
	return boots, kc, nil
}

// reproduce: the command that runs this bisect again from nothing, and
// the one that prints it.
func reproduce(id int64, spec *Spec) []string {
	args := []string{"kregress", "bisect"}
	if spec.Experiment != "" {
		args = append(args, "-c", spec.Experiment)
	}
	args = append(args, "--kernel.git-tree", spec.GitTree)
	if spec.Series {
		args = append(args, "--series", spec.Bad, "--base", spec.Good)
	} else {
		args = append(args, "--good", spec.Good, "--bad", spec.Bad)
	}
	if spec.Variant != "" {
		args = append(args, "--variant", spec.Variant)
	}
	if spec.Crash {
		args = append(args, "--crash")
	} else {
		args = append(args, "--metric", spec.Metric)
	}
	if spec.Alpha != 0 && spec.Alpha != 0.05 {
		args = append(args, "--alpha", fmt.Sprint(spec.Alpha))
	}
	if len(spec.Reps) > 0 {
		args = append(args, "--repetitions", repsText(spec.Reps))
	}
	return []string{shellquote.Join(args), fmt.Sprintf("kregress bisect show %d", id)}
}

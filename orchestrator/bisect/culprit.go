package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"strings"

	"github.com/kregress/kregress/internal/shellquote"
	"github.com/kregress/kregress/internal/stats"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// BuildReport assembles bisect id's report from its spec, result (nil
// when it stopped before the endpoints were measured), the error it
// ended with, and its runs in store.
func BuildReport(ctx context.Context, store results.Store, id int64, spec *Spec, res *Result, runErr error) (*bisectreport.Report, error) {
	r := &bisectreport.Report{BisectID: id, Experiment: spec.Experiment, Variant: spec.Variant, Metric: spec.Metric, Crash: spec.Crash,
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
		cc, err := c.Report()
		if err != nil {
			return nil, err
		}
		r.Confirmation = cc
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
	g, b := stats.Median(good), stats.Median(bad)
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
func describeCulprit(ctx context.Context, spec *Spec, culprit string) (*bisectreport.Commit, error) {
	if spec.Series {
		subject, author := splitTitle(spec.Titles[culprit])
		return &bisectreport.Commit{ID: culprit, Subject: subject, Author: author}, nil
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
	c := &bisectreport.Commit{ID: f[0], Subject: f[1], Author: f[2], Date: f[3]}
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
func bootsAndKernel(ctx context.Context, store results.Store, res *Result) (int, bisectreport.KernelConfig, error) {
	var kc bisectreport.KernelConfig
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
					kc = bisectreport.KernelConfig{BaseConfig: p.BaseConfig, ConfigSHA256: p.ConfigSHA256, Preemption: p.Preemption, Compiler: p.Compiler, Accel: p.Accel, VCPUs: p.VCPUs}
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
	return []string{bisectCommand(spec, spec.Good, spec.Bad), fmt.Sprintf("kregress bisect show %d", id)}
}

// bisectCommand is the kregress bisect command that searches spec's
// experiment, metric and options from good to bad (a series: the series
// bad on the base good).
func bisectCommand(spec *Spec, good, bad string) string {
	args := []string{"kregress", "bisect"}
	if spec.Experiment != "" {
		args = append(args, "-c", spec.Experiment)
	}
	args = append(args, "--kernel.git-tree", spec.GitTree)
	if spec.Series {
		args = append(args, "--series", bad, "--base", good)
	} else {
		args = append(args, "--good", good, "--bad", bad)
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
		args = append(args, "--looks", RepsString(spec.Reps))
	}
	return shellquote.Join(args)
}

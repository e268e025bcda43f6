package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel/gitfixture"
)

// countingProber counts what a bisect costs: builds (and their time),
// measurement runs.
type countingProber struct {
	bisect.Prober
	builds      int
	buildTime   time.Duration
	measureRuns int
}

func (c *countingProber) Build(ctx context.Context, name string) (string, error) {
	t0 := time.Now()
	img, err := c.Prober.Build(ctx, name)
	c.builds++
	c.buildTime += time.Since(t0)
	return img, err
}

func (c *countingProber) Measure(ctx context.Context, step, good, bad string, reps int) (*bisect.Samples, error) {
	c.measureRuns++
	return c.Prober.Measure(ctx, step, good, bad, reps)
}

// AddPoint passes the revert's point on to the wrapped prober: a bisect
// confirms its culprit by measuring the bad endpoint with the culprit
// reverted, and a prober that cannot take the point fails the bisect
// ("this prober cannot measure a revert": make bench did, after 35
// minutes of figures).
func (c *countingProber) AddPoint(name string, pt bisect.Point) {
	c.Prober.(interface{ AddPoint(string, bisect.Point) }).AddPoint(name, pt)
}

// benchBisect bisects eight commits of the fixture repository (the fourth
// breaks the build, the sixth holds the rstat lock 200 us longer) with the
// default experiment's shape and prints its wall time, the kernels built,
// the guests booted, and the build time per step against cold (when the
// git-ref figures measured one).
func benchBisect(ctx context.Context, cfg *config.Config, repo *gitfixture.Repo, cold float64) error {
	edits := []struct {
		file, msg string
		edit      func(string) (string, error)
	}{
		{"README", "doc: one", func(s string) (string, error) { return s + "\nbench one\n", nil }},
		{"mm/swap.c", "mm/swap: a comment", gitfixture.Replace("void lru_add_drain(void)\n", "/* bench two */\nvoid lru_add_drain(void)\n")},
		{"README", "doc: three", func(s string) (string, error) { return s + "\nbench three\n", nil }},
		{"kernel/fork.c", "fork: break the build", gitfixture.Replace("static int copy_mm(unsigned long clone_flags, struct task_struct *tsk)\n", "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk) syntax error\n")},
		{"kernel/fork.c", "fork: fix the build", gitfixture.Replace("static int copy_mm(unsigned long clone_flags, struct task_struct *tsk) syntax error\n", "static int copy_mm(unsigned long clone_flags, struct task_struct *tsk)\n")},
		{"kernel/cgroup/rstat.c", "cgroup/rstat: hold the lock 200us longer", func(s string) (string, error) {
			s, err := gitfixture.Replace("#include <linux/cpumask.h>\n", "#include <linux/cpumask.h>\n#include <linux/delay.h>\n")(s)
			if err != nil {
				return "", err
			}
			return gitfixture.Replace("\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n}", "\ttrace_cgroup_rstat_locked(cgrp, cpu_in_loop, contended);\n\tudelay(200);\n}")(s)
		}},
		{"README", "doc: seven", func(s string) (string, error) { return s + "\nbench seven\n", nil }},
		{"mm/swap.c", "mm/swap: another comment", gitfixture.Replace("void lru_add_drain(void)\n", "/* bench eight */\nvoid lru_add_drain(void)\n")},
	}
	parent := repo.Base
	for _, e := range edits {
		c, err := repo.Edit(ctx, parent, "bench-bisect", e.file, e.msg, e.edit)
		if err != nil {
			return err
		}
		parent = c
	}
	store, dir, done, err := tempStore("kregress-bench-bisect-")
	if err != nil {
		return err
	}
	defer done()
	bc := *cfg
	bc.ResultsDir, bc.Kernel.GitTree = dir, repo.Path
	bc.Workload.Duration = config.Duration(2 * time.Second)
	bc.Selftests.Repetitions = 0
	spec, err := bisect.CommitRange(ctx, repo.Path, repo.Base, "bench-bisect")
	if err != nil {
		return err
	}
	spec.Metric, spec.Reps = "rstat_lock_hold_p50_us", []int{5, 5}
	prober := &countingProber{Prober: &bisect.PipelineProber{Cfg: &bc, Points: spec.Points, Metric: spec.Metric, Store: store, Report: logf}}
	t0 := time.Now()
	_, res, err := (&bisect.Runner{Store: store, Prober: prober, Report: logf}).Start(ctx, spec)
	if err != nil {
		return err
	}
	wall := time.Since(t0).Seconds()
	boots := 0
	runs, _ := store.ListRuns(ctx, 0)
	for _, r := range runs {
		rs, _ := store.Results(ctx, r.ID)
		boots += len(rs)
	}
	culprit := res.Culprit
	if len(culprit) > 12 {
		culprit = culprit[:12]
	}
	figure(fmt.Sprintf("bisect of 8 commits (culprit %s), wall", culprit), strconv.FormatFloat(wall, 'f', 1, 64))
	figure("  kernels built or looked up (one per tried commit)", strconv.Itoa(prober.builds))
	figure("  measured steps", strconv.Itoa(res.Measured))
	figure("  guests booted", strconv.Itoa(boots))
	if prober.builds > 0 {
		per := prober.buildTime.Seconds() / float64(prober.builds)
		figure("  build time per tried commit", strconv.FormatFloat(per, 'f', 1, 64))
		if cold > 0 {
			figure("  build per step / cold build", strconv.FormatFloat(per/cold, 'f', 3, 64))
		}
	}
	return nil
}

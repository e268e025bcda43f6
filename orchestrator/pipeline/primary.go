package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

// UnmeasurablePrimaryError is an experiment whose primary metric the
// kernel it would build cannot produce: refused before anything is built
// (a usage error: the experiment or the tree must change).
type UnmeasurablePrimaryError struct {
	Metric  string
	Source  string
	Version string // the tree's version, or "version unknown"
	Missing []probe.Need
	// Named: the experiment named it in primary_metrics (else it is the
	// workload's own, and its fallback could not be measured either).
	Named bool
}

func (e *UnmeasurablePrimaryError) Error() string {
	var miss []string
	for _, n := range e.Missing {
		miss = append(miss, n.String())
	}
	how := "name one this kernel has in primary_metrics (or use a tree that has it)"
	if !e.Named {
		how = "the workload's fallback cannot be measured either; name a primary metric in primary_metrics"
	}
	return fmt.Sprintf("primary metric %s cannot be measured on %s (%s): it needs %s, which the tree does not define (include/trace/events); %s",
		e.Metric, e.Source, e.Version, strings.Join(miss, ", "), how)
}

// ExitStatus is a usage error's: the experiment or the tree must change.
func (e *UnmeasurablePrimaryError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// checkPrimary refuses, before anything is built, an experiment whose
// primary metric some planned variant's tree cannot produce (a tracepoint
// it needs is defined by no header of the tree). When the primary is the
// workload's own (not named by the experiment) and the workload has a
// fallback every tree can produce, the fallback is judged instead:
// written into cfg.PrimaryMetrics (the stored configuration says what was
// judged), why into cfg.PrimaryFallback, and reported as a Warning. Function names are the guest probe's to check at
// run time. Part of Preflight.
func checkPrimary(ctx context.Context, cfg *config.Config, plans []BuildPlan, report progress.Reporter) error {
	if !anyNeeds(cfg.Workload, cfg.JudgedPrimary()) {
		return nil // nothing to unpack a tree for
	}
	b := builder(cfg, report)
	var trees []sourceTree
	seen := map[string]bool{}
	for _, p := range plans {
		name := p.Request.Source.String()
		if seen[name] {
			continue // variants of one tarball or ref: read it once
		}
		seen[name] = true
		dir, _, err := b.Pristine(ctx, p.Request.Source)
		if err != nil {
			return fmt.Errorf("variant %s: unpacking its source to check the primary metric: %w", p.Variant.Name, err)
		}
		trees = append(trees, sourceTree{dir: dir, name: name})
	}
	return checkPrimaryIn(cfg, trees, report)
}

// sourceTree is an unpacked tree and the source it was unpacked from.
type sourceTree struct {
	dir  string
	name string // for messages: the tarball, or the git tree and ref
}

// version reads the tree's version for messages only: a tree whose
// Makefile does not say it (a test's fixture) is still checked.
func (t sourceTree) version() string {
	if v, err := kernel.TreeVersion(t.dir); err == nil {
		return v.String()
	}
	return "version unknown"
}

// checkPrimaryIn is checkPrimary on unpacked trees.
func checkPrimaryIn(cfg *config.Config, trees []sourceTree, report progress.Reporter) error {
	primary := cfg.JudgedPrimary()
	if !anyNeeds(cfg.Workload, primary) {
		return nil
	}
	lacking := func(ms []string) (*UnmeasurablePrimaryError, error) {
		for _, t := range trees {
			for _, m := range ms {
				s, _ := cfg.Workload.Spec(m)
				missing, err := probe.TreeLacks(t.dir, s.Needs)
				if err != nil {
					return nil, err
				}
				if len(missing) > 0 {
					return &UnmeasurablePrimaryError{Metric: m, Source: t.name, Version: t.version(), Missing: missing}, nil
				}
			}
		}
		return nil, nil
	}
	bad, err := lacking(primary)
	if err != nil || bad == nil {
		return err
	}
	if len(cfg.PrimaryMetrics) > 0 {
		bad.Named = true
		return bad
	}
	fallback := workload.FallbackPrimary(cfg.Workload.Name)
	if len(fallback) == 0 {
		return bad
	}
	if fb, err := lacking(fallback); err != nil || fb != nil {
		if err != nil {
			return err
		}
		return fb
	}
	// A warning, not progress: the verdict is about another metric now.
	// The stored configuration keeps why (StoredPrimaryFallback), for the
	// verdicts judged from it later.
	cfg.PrimaryFallback = fmt.Sprintf("primary metric: %s instead of %s, which %s (%s) cannot produce: %s",
		strings.Join(fallback, ", "), bad.Metric, bad.Source, bad.Version, probe.Unavailable(bad.Missing))
	report("%s", progress.Warning(cfg.PrimaryFallback))
	cfg.PrimaryMetrics = append([]string(nil), fallback...)
	return nil
}

// StoredPrimaryFallback is why a stored run judged its workload's
// fallback primary metric (config.Config.PrimaryFallback in the run's
// stored configuration), or "" (results.StoredPrimaryFallback).
func StoredPrimaryFallback(configYAML string) string {
	return results.StoredPrimaryFallback(configYAML)
}

// anyNeeds: one of metrics (of w's, the named locks' included) needs
// something of the kernel.
func anyNeeds(w config.Workload, metrics []string) bool {
	for _, m := range metrics {
		if s, _ := w.Spec(m); len(s.Needs) > 0 {
			return true
		}
	}
	return false
}

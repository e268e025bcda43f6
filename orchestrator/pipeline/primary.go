package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
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

// CheckPrimary refuses, before anything is built, an experiment whose
// primary metric the base tree cannot produce (a tracepoint it needs is
// defined by no header of the tree). When the primary is the workload's
// own (not named by the experiment) and the workload has a fallback the
// tree can produce, the fallback is judged instead: written into
// cfg.PrimaryMetrics (the stored configuration says what was judged) and
// reported. Function names are the guest probe's to check at run time.
func CheckPrimary(ctx context.Context, cfg *config.Config, report Reporter) error {
	primary := cfg.JudgedPrimary()
	if len(primary) == 0 {
		return nil
	}
	if !anyNeeds(primary) {
		return nil
	}
	src, err := Source(cfg.Kernel)
	if err != nil {
		return err
	}
	b := builder(cfg, report)
	tree, _, err := b.Pristine(ctx, src)
	if err != nil {
		return err
	}
	return checkPrimaryIn(cfg, tree, src.String(), report)
}

// checkPrimaryIn is CheckPrimary on an unpacked tree, described as src.
func checkPrimaryIn(cfg *config.Config, tree, src string, report Reporter) error {
	primary := cfg.JudgedPrimary()
	if !anyNeeds(primary) {
		return nil
	}
	// The version is for the message only: a tree whose Makefile does
	// not say it (a test's fixture) is still checked.
	version := "version unknown"
	if v, err := kernel.TreeVersion(tree); err == nil {
		version = v.String()
	}
	lacking := func(ms []string) (*UnmeasurablePrimaryError, error) {
		for _, m := range ms {
			missing, err := probe.TreeLacks(tree, probe.Needs(m))
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				return &UnmeasurablePrimaryError{Metric: m, Source: src, Version: version, Missing: missing}, nil
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
	fallback := config.WorkloadFallbackPrimary[cfg.Workload.Name]
	if len(fallback) == 0 {
		return bad
	}
	if fb, err := lacking(fallback); err != nil || fb != nil {
		if err != nil {
			return err
		}
		return fb
	}
	report("primary metric: %s instead of %s, which %s (%s) cannot produce: %s",
		strings.Join(fallback, ", "), bad.Metric, src, version, probe.Unavailable(bad.Missing))
	cfg.PrimaryMetrics = append([]string(nil), fallback...)
	return nil
}

func anyNeeds(metrics []string) bool {
	for _, m := range metrics {
		if len(probe.Needs(m)) > 0 {
			return true
		}
	}
	return false
}

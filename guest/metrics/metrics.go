// Package metrics is the vocabulary of what a workload measures: a
// metric's name, unit, direction, how it is measured and what it needs of
// the kernel (Spec), and the irqs-off figures every workload reports from
// its traced half. Each workload lists its own metrics in its descriptor
// (guest/workload/desc), and builds its agentproto.Metric values from
// those specs (Spec.Of), so a name that `kregress metrics` lists is
// exactly one a run stores, and what --metric, primary_metrics and
// noise_floor_pct accept.
package metrics

import (
	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/probe"
)

// Spec is one metric a workload reports.
type Spec struct {
	Name      string               `json:"name"`
	Unit      string               `json:"unit"`
	Direction agentproto.Direction `json:"direction"`
	// How says what is measured and how, in one line.
	How string `json:"how"`
	// Needs is what the metric needs of the kernel beyond its
	// workload's basics (cgroup files, the irqsoff tracer that
	// guest.config builds in): the guest's probe reports the metric
	// unavailable where one is missing, and the host refuses a primary
	// metric whose tracepoints the source tree lacks.
	Needs []probe.Need `json:"-"`
}

// Of is the metric with value v.
func (s Spec) Of(v float64) agentproto.Metric {
	return agentproto.Metric{Name: s.Name, Unit: s.Unit, Direction: s.Direction, Value: v}
}

// Judged: a comparison calls a change of it a regression or an
// improvement (informational metrics are shown, never judged).
func (s Spec) Judged() bool { return s.Direction != agentproto.Informational }

// Define is a metric: its name, unit, better direction, how it is
// measured (one line) and what it needs of the kernel (none: nothing
// beyond its workload's basics).
func Define(name, unit string, d agentproto.Direction, how string, needs ...probe.Need) Spec {
	return Spec{Name: name, Unit: unit, Direction: d, How: how, Needs: needs}
}

// The directions, short for the workloads' tables.
const (
	Higher = agentproto.HigherIsBetter
	Lower  = agentproto.LowerIsBetter
	Info   = agentproto.Informational
)

// The irqs-off tracer's figures, which every workload reports from its
// traced half.
var (
	IrqsoffWorst     = Define("irqsoff_worst_us", "us", Lower, "the longest irqs-off section the irqsoff tracer saw in the traced half")
	IrqsoffWindowP50 = Define("irqsoff_window_p50_us", "us", Lower, "median over the sampling windows of each window's longest irqs-off section")
)

// CPUsUsed is the evidence that a workload loaded every CPU it was meant
// to: each of its actors (reader threads, exec chains, movers, page
// faulters) pinned to its own online CPU reports where it completed work
// (guest/workload/percpu).
var CPUsUsed = Define("cpus_used", "CPUs", Info, "distinct CPUs on which the workload's actors, each pinned to an online CPU, completed work (both halves)")

// Holder is an irqs-off holder a workload classifies its sampling
// windows by: the share of windows whose longest section's frames
// mention Substr is reported as Share.
type Holder struct {
	Substr string
	Share  Spec
}

// Wants are the probe's questions about specs: those with needs, in
// specs' order.
func Wants(specs []Spec) []probe.Want {
	var out []probe.Want
	for _, s := range specs {
		if len(s.Needs) > 0 {
			out = append(out, probe.Want{Metric: s.Name, Needs: s.Needs})
		}
	}
	return out
}

// IrqsoffSpecs are the irqs-off metrics every workload reports, in their
// report's order (sampler.IrqsoffMetrics without a holder).
func IrqsoffSpecs() []Spec { return []Spec{IrqsoffWorst, IrqsoffWindowP50} }

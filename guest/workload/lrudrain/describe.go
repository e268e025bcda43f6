package lrudrain

import (
	"context"
	"flag"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/desc"
)

// Name is the workload's name: what an experiment's workload.name and
// `kagent run` say.
const Name = "lru-drain"

// The workload's metrics: lru_add_drain_all triggered on an idle and on
// a busy guest.
var (
	DrainIdleP50       = metrics.Define("drain_idle_p50_us", "us", metrics.Lower, "median time of one triggered lru_add_drain_all, other CPUs idle")
	DrainIdleP99       = metrics.Define("drain_idle_p99_us", "us", metrics.Lower, "99th percentile drain time, other CPUs idle")
	DrainIdleMax       = metrics.Define("drain_idle_max_us", "us", metrics.Lower, "longest drain, other CPUs idle")
	DrainIdleSamples   = metrics.Define("drain_idle_samples", "drains", metrics.Info, "drains timed, other CPUs idle")
	DrainBusyP50       = metrics.Define("drain_busy_p50_us", "us", metrics.Lower, "median time of one triggered lru_add_drain_all, every CPU busy")
	DrainBusyP99       = metrics.Define("drain_busy_p99_us", "us", metrics.Lower, "99th percentile drain time, every CPU busy")
	DrainBusyMax       = metrics.Define("drain_busy_max_us", "us", metrics.Lower, "longest drain, every CPU busy")
	DrainBusySamples   = metrics.Define("drain_busy_samples", "drains", metrics.Info, "drains timed, every CPU busy")
	DrainBusyP50Traced = metrics.Define("drain_busy_p50_us_traced", "us", metrics.Info, "drain_busy_p50_us in the traced half: what tracing costs")
)

// Workload is the workload's descriptor.
var Workload = desc.Workload{
	Name: Name,
	Bind: func(fs *flag.FlagSet, env desc.Env) (func() error, desc.RunFunc) {
		p := &Params{SysctlDir: env.SysctlVM, Tracefs: env.Tracefs, Self: env.Self}
		p.Flags(fs)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return Run(ctx, *p) }
	},
	Metrics: []metrics.Spec{DrainIdleP50, DrainIdleP99, DrainIdleMax, DrainIdleSamples, DrainBusyP50, DrainBusyP99, DrainBusyMax, DrainBusySamples,
		DrainBusyP50Traced, metrics.CPUsUsed, metrics.IrqsoffWorst, metrics.IrqsoffWindowP50},
	Primary: []string{DrainBusyP50.Name},
	Helpers: []desc.Helper{{Name: "faulter", Run: func([]string) error { return Faulter() }}},
}

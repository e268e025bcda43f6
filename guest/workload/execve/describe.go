package execve

import (
	"context"
	"flag"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/desc"
)

// Name is the workload's name: what an experiment's workload.name and
// `kagent run` say.
const Name = "execve"

// The workload's metrics: workers exec a chain of short programs.
var (
	ExecsPerSec          = metrics.Define("execs_per_sec", "execs/s", metrics.Higher, "execve calls completed per second by all workers, in the untraced half")
	ExecsPerSecPerWorker = metrics.Define("execs_per_sec_per_worker", "execs/s", metrics.Higher, "execs_per_sec divided by the workers")
	ExecsTotal           = metrics.Define("execs_total", "execs", metrics.Info, "execve calls in the untraced half")
	ExecsPerSecTraced    = metrics.Define("execs_per_sec_traced", "execs/s", metrics.Info, "execs per second in the traced half: what tracing costs")
)

// Workload is the workload's descriptor.
var Workload = desc.Workload{
	Name: Name,
	Bind: func(fs *flag.FlagSet, env desc.Env) (func() error, desc.RunFunc) {
		p := &Params{Doexec: env.Doexec, TmpDir: env.TmpDir, Tracefs: env.Tracefs}
		p.Flags(fs)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return Run(ctx, *p) }
	},
	Metrics: []metrics.Spec{ExecsPerSec, ExecsPerSecPerWorker, ExecsTotal, ExecsPerSecTraced, metrics.CPUsUsed, metrics.IrqsoffWorst, metrics.IrqsoffWindowP50},
	Primary: []string{ExecsPerSec.Name},
}

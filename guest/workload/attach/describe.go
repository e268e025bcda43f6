package attach

import (
	"context"
	"flag"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/desc"
)

// Name is the workload's name: what an experiment's workload.name and
// `kagent run` say.
const Name = "cgroup-attach"

// The workload's metrics: movers move tasks between cpuset cgroups while
// the cpuset's CPUs are rewritten.
var (
	AttachesPerSec       = metrics.Define("attaches_per_sec", "moves/s", metrics.Higher, "task moves between cgroups per second, in the untraced half")
	AttachLatencyP50     = metrics.Define("attach_latency_p50_us", "us", metrics.Lower, "median time of one write to cgroup.procs")
	AttachLatencyP99     = metrics.Define("attach_latency_p99_us", "us", metrics.Lower, "99th percentile time of one write to cgroup.procs")
	AttachLatencyMax     = metrics.Define("attach_latency_max_us", "us", metrics.Lower, "longest write to cgroup.procs")
	CpusetCPUsWrites     = metrics.Define("cpuset_cpus_writes", "writes", metrics.Info, "writes to cpuset.cpus during the run")
	AttachesPerSecTraced = metrics.Define("attaches_per_sec_traced", "moves/s", metrics.Info, "moves per second in the traced half: what tracing costs")
)

// Workload is the workload's descriptor.
var Workload = desc.Workload{
	Name: Name,
	Bind: func(fs *flag.FlagSet, env desc.Env) (func() error, desc.RunFunc) {
		p := &Params{CgroupRoot: env.CgroupRoot, Tracefs: env.Tracefs}
		p.Flags(fs)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return Run(ctx, *p) }
	},
	Metrics: []metrics.Spec{AttachesPerSec, AttachLatencyP50, AttachLatencyP99, AttachLatencyMax, CpusetCPUsWrites, AttachesPerSecTraced, metrics.CPUsUsed, metrics.IrqsoffWorst, metrics.IrqsoffWindowP50},
	Primary: []string{AttachLatencyP50.Name},
}

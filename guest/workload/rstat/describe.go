package rstat

import (
	"context"
	"flag"
	"slices"

	"github.com/kregress/kregress/guest/agentproto"
	catalog "github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/workload/desc"
)

// Name is the workload's name: what an experiment's workload.name and
// `kagent run` say.
const Name = "rstat"

// The rstat lock's hold events: cgroup_rstat_lock is taken with irqs off,
// and these two bracket every hold (6.10 to 6.15; the rework after 6.15
// has css_rstat_* names and per-subsystem locks).
var lockEvents = []probe.Need{
	{Kind: probe.Tracepoint, Name: "cgroup/cgroup_rstat_locked"},
	{Kind: probe.Tracepoint, Name: "cgroup/cgroup_rstat_unlock"},
}

// flushFunctions is what the irqs-off holder classifier looks for in a
// window's frames: 6.1 has cgroup_rstat_flush_locked and
// cgroup_rstat_flush_irqsafe, 6.12 cgroup_rstat_flush_locked, the rework
// css_rstat_flush. A kernel with no such function would read 0 for a
// reason other than rstat never holding irqs off.
const flushFunctions = "rstat"

// The workload's metrics: readers of memory.stat flush the cgroup rstat
// tree while hogs dirty it.
var (
	ReadsPerSec            = catalog.Define("reads_per_sec", "reads/s", catalog.Higher, "memory.stat reads per second by the readers, in the untraced half")
	ReadsTotal             = catalog.Define("reads_total", "reads", catalog.Info, "memory.stat reads in the untraced half")
	ReadLatencyP50         = catalog.Define("read_latency_p50_us", "us", catalog.Lower, "median time of one memory.stat read")
	ReadLatencyP99         = catalog.Define("read_latency_p99_us", "us", catalog.Lower, "99th percentile time of one memory.stat read")
	OOMKills               = catalog.Define("oom_kills", "kills", catalog.Info, "OOM kills of the memory hogs (hog-mode oom)")
	HogRestarts            = catalog.Define("hog_restarts", "restarts", catalog.Info, "times a memory hog was restarted")
	ReadsPerSecTraced      = catalog.Define("reads_per_sec_traced", "reads/s", catalog.Info, "reads per second in the traced half: what tracing costs")
	RstatLockHolds         = catalog.Define("rstat_lock_holds", "holds", catalog.Info, "rstat lock holds seen (cgroup_rstat_locked/unlock tracepoints)", lockEvents...)
	RstatLockHoldP50       = catalog.Define("rstat_lock_hold_p50_us", "us", catalog.Lower, "median time the rstat lock was held (irqs off), every holder", lockEvents...)
	RstatLockHoldP99       = catalog.Define("rstat_lock_hold_p99_us", "us", catalog.Lower, "99th percentile rstat lock hold, every holder", lockEvents...)
	RstatLockHoldMax       = catalog.Define("rstat_lock_hold_max_us", "us", catalog.Lower, "longest rstat lock hold", lockEvents...)
	RstatLockHoldsReaders  = catalog.Define("rstat_lock_holds_readers", "holds", catalog.Info, "rstat lock holds by the readers' own flushes (not the kernel's periodic flusher)", lockEvents...)
	RstatLockHoldReaderP50 = catalog.Define("rstat_lock_hold_reader_p50_us", "us", catalog.Lower, "median rstat lock hold of the readers' own flushes", lockEvents...)
	RstatLockHoldReaderP99 = catalog.Define("rstat_lock_hold_reader_p99_us", "us", catalog.Lower, "99th percentile rstat lock hold of the readers' own flushes", lockEvents...)
	// IrqsoffRstatWindows is the share of windows whose longest section
	// was in the rstat flush.
	IrqsoffRstatWindows = catalog.Define("irqsoff_rstat_windows_pct", "%", catalog.Lower, "share of sampling windows whose longest irqs-off section was held by the rstat flush",
		probe.Need{Kind: probe.FunctionPart, Name: flushFunctions})
)

// lockHoldMetrics are the figures of the lock's holds, which need its
// hold events.
var lockHoldMetrics = []catalog.Spec{RstatLockHolds, RstatLockHoldP50, RstatLockHoldP99, RstatLockHoldMax,
	RstatLockHoldsReaders, RstatLockHoldReaderP50, RstatLockHoldReaderP99}

// reported is what a run reports, in its report's order.
var reported = slices.Concat([]catalog.Spec{ReadsPerSec, ReadsTotal, ReadLatencyP50, ReadLatencyP99, OOMKills, HogRestarts, ReadsPerSecTraced,
	catalog.CPUsUsed, catalog.IrqsoffWorst, catalog.IrqsoffWindowP50, IrqsoffRstatWindows}, lockHoldMetrics)

// probed is what the guest's probe is asked before a run, in the order
// a report lists what is unavailable: the lock's holds, then the holder.
var probed = catalog.Wants(slices.Concat(lockHoldMetrics, []catalog.Spec{IrqsoffRstatWindows}))

// holder classifies the irqs-off windows by the rstat flush.
var holder = &catalog.Holder{Substr: flushFunctions, Share: IrqsoffRstatWindows}

// Workload is the workload's descriptor.
var Workload = desc.Workload{
	Name: Name,
	Bind: func(fs *flag.FlagSet, env desc.Env) (func() error, desc.RunFunc) {
		p := &Params{CgroupRoot: env.CgroupRoot, Tracefs: env.Tracefs, Proc: env.Proc}
		p.Flags(fs)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return Run(ctx, *p, env.Self) }
	},
	Metrics: reported,
	Primary: []string{RstatLockHoldP50.Name},
	// Before the lock-hold tracepoints (6.10), the memory.stat readers'
	// latency, which holds every flush they wait for, is the closest
	// figure of the same question.
	FallbackPrimary: []string{ReadLatencyP50.Name},
	Helpers:         []desc.Helper{{Name: "hog", Run: hogCommand}},
	Holder:          holder,
}

// hogCommand is `kagent hog`: one memory hog; with -steady-mb it charges
// and uncharges a ring of that size, without it charges until
// OOM-killed.
func hogCommand(args []string) error {
	fs := flag.NewFlagSet("hog", flag.ContinueOnError)
	steady := fs.Int("steady-mb", 0, "charge and uncharge a ring of this many MiB instead of charging until OOM-killed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *steady > 0 {
		return SteadyHog(*steady)
	}
	return Hog()
}

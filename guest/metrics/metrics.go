// Package metrics is the one list of what each kagent workload measures:
// every metric's name, unit, direction and how it is measured. The
// workloads build their agentproto.Metric values from it (Spec.Of), so a
// name that `kregress metrics` lists is exactly one a run stores, and
// what --metric, primary_metrics and noise_floor_pct accept.
package metrics

import (
	"sort"

	"github.com/kregress/kregress/guest/agentproto"
)

// Spec is one metric a workload reports.
type Spec struct {
	Name      string               `json:"name"`
	Unit      string               `json:"unit"`
	Direction agentproto.Direction `json:"direction"`
	// How says what is measured and how, in one line.
	How string `json:"how"`
}

// Of is the metric with value v.
func (s Spec) Of(v float64) agentproto.Metric {
	return agentproto.Metric{Name: s.Name, Unit: s.Unit, Direction: s.Direction, Value: v}
}

// Judged: a comparison calls a change of it a regression or an
// improvement (informational metrics are shown, never judged).
func (s Spec) Judged() bool { return s.Direction != agentproto.Informational }

func spec(name, unit string, d agentproto.Direction, how string) Spec {
	return Spec{Name: name, Unit: unit, Direction: d, How: how}
}

const (
	higher = agentproto.HigherIsBetter
	lower  = agentproto.LowerIsBetter
	info   = agentproto.Informational
)

// The irqs-off tracer's figures, which every workload reports from its
// traced half.
var (
	IrqsoffWorst     = spec("irqsoff_worst_us", "us", lower, "the longest irqs-off section the irqsoff tracer saw in the traced half")
	IrqsoffWindowP50 = spec("irqsoff_window_p50_us", "us", lower, "median over the sampling windows of each window's longest irqs-off section")
	// IrqsoffRstatWindows is rstat's share of windows whose longest
	// section was in the rstat flush.
	IrqsoffRstatWindows = spec("irqsoff_rstat_windows_pct", "%", lower, "share of sampling windows whose longest irqs-off section was held by the rstat flush")
)

// rstat: readers of memory.stat flush the cgroup rstat tree while hogs
// dirty it.
var (
	ReadsPerSec            = spec("reads_per_sec", "reads/s", higher, "memory.stat reads per second by the readers, in the untraced half")
	ReadsTotal             = spec("reads_total", "reads", info, "memory.stat reads in the untraced half")
	ReadLatencyP50         = spec("read_latency_p50_us", "us", lower, "median time of one memory.stat read")
	ReadLatencyP99         = spec("read_latency_p99_us", "us", lower, "99th percentile time of one memory.stat read")
	OOMKills               = spec("oom_kills", "kills", info, "OOM kills of the memory hogs (hog-mode oom)")
	HogRestarts            = spec("hog_restarts", "restarts", info, "times a memory hog was restarted")
	ReadsPerSecTraced      = spec("reads_per_sec_traced", "reads/s", info, "reads per second in the traced half: what tracing costs")
	RstatLockHolds         = spec("rstat_lock_holds", "holds", info, "rstat lock holds seen (cgroup_rstat_locked/unlock tracepoints)")
	RstatLockHoldP50       = spec("rstat_lock_hold_p50_us", "us", lower, "median time the rstat lock was held (irqs off), every holder")
	RstatLockHoldP99       = spec("rstat_lock_hold_p99_us", "us", lower, "99th percentile rstat lock hold, every holder")
	RstatLockHoldMax       = spec("rstat_lock_hold_max_us", "us", lower, "longest rstat lock hold")
	RstatLockHoldsReaders  = spec("rstat_lock_holds_readers", "holds", info, "rstat lock holds by the readers' own flushes (not the kernel's periodic flusher)")
	RstatLockHoldReaderP50 = spec("rstat_lock_hold_reader_p50_us", "us", lower, "median rstat lock hold of the readers' own flushes")
	RstatLockHoldReaderP99 = spec("rstat_lock_hold_reader_p99_us", "us", lower, "99th percentile rstat lock hold of the readers' own flushes")
)

// execve: workers exec a chain of short programs.
var (
	ExecsPerSec          = spec("execs_per_sec", "execs/s", higher, "execve calls completed per second by all workers, in the untraced half")
	ExecsPerSecPerWorker = spec("execs_per_sec_per_worker", "execs/s", higher, "execs_per_sec divided by the workers")
	ExecsTotal           = spec("execs_total", "execs", info, "execve calls in the untraced half")
	ExecsPerSecTraced    = spec("execs_per_sec_traced", "execs/s", info, "execs per second in the traced half: what tracing costs")
)

// cgroup-attach: movers move tasks between cpuset cgroups while the
// cpuset's CPUs are rewritten.
var (
	AttachesPerSec       = spec("attaches_per_sec", "moves/s", higher, "task moves between cgroups per second, in the untraced half")
	AttachLatencyP50     = spec("attach_latency_p50_us", "us", lower, "median time of one write to cgroup.procs")
	AttachLatencyP99     = spec("attach_latency_p99_us", "us", lower, "99th percentile time of one write to cgroup.procs")
	AttachLatencyMax     = spec("attach_latency_max_us", "us", lower, "longest write to cgroup.procs")
	CpusetCPUsWrites     = spec("cpuset_cpus_writes", "writes", info, "writes to cpuset.cpus during the run")
	AttachesPerSecTraced = spec("attaches_per_sec_traced", "moves/s", info, "moves per second in the traced half: what tracing costs")
)

// lru-drain: lru_add_drain_all triggered on an idle and on a busy guest.
var (
	DrainIdleP50       = spec("drain_idle_p50_us", "us", lower, "median time of one triggered lru_add_drain_all, other CPUs idle")
	DrainIdleP99       = spec("drain_idle_p99_us", "us", lower, "99th percentile drain time, other CPUs idle")
	DrainIdleMax       = spec("drain_idle_max_us", "us", lower, "longest drain, other CPUs idle")
	DrainIdleSamples   = spec("drain_idle_samples", "drains", info, "drains timed, other CPUs idle")
	DrainBusyP50       = spec("drain_busy_p50_us", "us", lower, "median time of one triggered lru_add_drain_all, every CPU busy")
	DrainBusyP99       = spec("drain_busy_p99_us", "us", lower, "99th percentile drain time, every CPU busy")
	DrainBusyMax       = spec("drain_busy_max_us", "us", lower, "longest drain, every CPU busy")
	DrainBusySamples   = spec("drain_busy_samples", "drains", info, "drains timed, every CPU busy")
	DrainBusyP50Traced = spec("drain_busy_p50_us_traced", "us", info, "drain_busy_p50_us in the traced half: what tracing costs")
)

// HeldByWindows is the share-of-windows metric for a holder the sampler
// looks for (ftrace.HeldBy); false for any other.
func HeldByWindows(holder string) (Spec, bool) {
	if holder == "rstat" {
		return IrqsoffRstatWindows, true
	}
	return Spec{}, false
}

var byWorkload = map[string][]Spec{
	"rstat": {ReadsPerSec, ReadsTotal, ReadLatencyP50, ReadLatencyP99, OOMKills, HogRestarts, ReadsPerSecTraced,
		IrqsoffWorst, IrqsoffWindowP50, IrqsoffRstatWindows,
		RstatLockHolds, RstatLockHoldP50, RstatLockHoldP99, RstatLockHoldMax,
		RstatLockHoldsReaders, RstatLockHoldReaderP50, RstatLockHoldReaderP99},
	"execve":        {ExecsPerSec, ExecsPerSecPerWorker, ExecsTotal, ExecsPerSecTraced, IrqsoffWorst, IrqsoffWindowP50},
	"cgroup-attach": {AttachesPerSec, AttachLatencyP50, AttachLatencyP99, AttachLatencyMax, CpusetCPUsWrites, AttachesPerSecTraced, IrqsoffWorst, IrqsoffWindowP50},
	"lru-drain": {DrainIdleP50, DrainIdleP99, DrainIdleMax, DrainIdleSamples, DrainBusyP50, DrainBusyP99, DrainBusyMax, DrainBusySamples,
		DrainBusyP50Traced, IrqsoffWorst, IrqsoffWindowP50},
}

// Workloads lists the workloads kagent runs, sorted.
func Workloads() []string {
	var out []string
	for w := range byWorkload {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// For is what workload reports, in its report's order; nil for an
// unknown workload.
func For(workload string) []Spec { return append([]Spec(nil), byWorkload[workload]...) }

// Lookup finds a metric of workload by name.
func Lookup(workload, name string) (Spec, bool) {
	for _, s := range byWorkload[workload] {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Names is workload's metric names, for error messages.
func Names(workload string) []string {
	var out []string
	for _, s := range byWorkload[workload] {
		out = append(out, s.Name)
	}
	return out
}

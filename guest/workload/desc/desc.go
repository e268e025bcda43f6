// Package desc is what a workload is, in one value its own package
// declares (Workload): its name, its parameters and how it runs, the
// metrics it reports (name, unit, better direction, what each needs of
// the kernel), which of them a comparison judges first and what instead
// on a kernel that cannot produce those, the helper commands it
// re-executes kagent as, and the irqs-off holder it classifies windows
// by. The registry (guest/workload) lists the descriptors; kagent, the
// metric catalog, config validation, `kregress metrics`, the help texts
// and the docs test all read them from there, so adding a workload is its
// own package and one line of that list.
package desc

import (
	"context"
	"flag"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/metrics"
)

// Env is where a workload finds the guest's files. Parameters are what an
// experiment chooses; these are facts of the guest image.
type Env struct {
	// Self is the kagent binary, re-executed as a workload's helpers.
	Self       string
	CgroupRoot string
	Tracefs    string
	Proc       string
	SysctlVM   string // /proc/sys/vm
	Doexec     string // execve's static helper
	TmpDir     string
}

// GuestEnv is the guest image's layout (images/initramfs), with self the
// running kagent.
func GuestEnv(self string) Env {
	return Env{Self: self, CgroupRoot: "/sys/fs/cgroup", Tracefs: ftrace.DefaultRoot, Proc: "/proc",
		SysctlVM: "/proc/sys/vm", Doexec: "/bin/doexec", TmpDir: "/tmp"}
}

// RunFunc runs a workload whose parameters have been parsed.
type RunFunc func(ctx context.Context) (*agentproto.Document, error)

// Helper is a kagent command a workload re-executes kagent as (`kagent
// NAME ARGS...`): a memory hog, a page faulter.
type Helper struct {
	Name string
	Run  func(args []string) error
}

// Workload is everything a workload is.
type Workload struct {
	Name string
	// Bind declares the workload's parameters on fs, bound to a value
	// holding their defaults and env's paths, and returns that value's
	// validation and run.
	Bind func(fs *flag.FlagSet, env Env) (validate func() error, run RunFunc)
	// Metrics is what a run reports, in its report's order.
	Metrics []metrics.Spec
	// Primary is the metric the workload is about, judged as its own
	// false-discovery family when an experiment names no
	// primary_metrics, so that a large change of it is not diluted by
	// the secondary metrics: the least noisy figure of the question the
	// workload asks (docs/sensitivity.md).
	Primary []string
	// FallbackPrimary is judged instead of Primary on a kernel that
	// cannot produce it (Metrics' Needs); the run says so and stores the
	// metric it judged in its configuration. Empty: none, the run is
	// refused.
	FallbackPrimary []string
	// Helpers are the kagent commands the workload re-executes kagent as.
	Helpers []Helper
	// Holder, when set, is the irqs-off holder whose share of sampling
	// windows the workload reports (it is then among Metrics).
	Holder *metrics.Holder
	// Declared, when set, is the flag carrying a declaration the
	// experiment makes of the workload (the benchmark workload's
	// program, parser and metrics): the host writes it, never
	// workload.params; Metrics are then only those every run reports,
	// and the declaration adds its own and its primary.
	Declared string
}

// Metric finds one of the workload's metrics by name.
func (w Workload) Metric(name string) (metrics.Spec, bool) {
	for _, s := range w.Metrics {
		if s.Name == name {
			return s, true
		}
	}
	return metrics.Spec{}, false
}

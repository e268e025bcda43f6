// Package workload is the registry of what `kagent run` runs: one line per
// workload, naming the descriptor its own package declares
// (guest/workload/desc): its name, parameters (declared once, by its
// Params.Flags), how it runs, its metrics and primary metrics, its helper
// commands. kagent parses its command line here, and the host
// (orchestrator/pipeline) validates an experiment's workload by parsing the
// command line it will send here too, so the two cannot disagree; the
// metric catalog (`kregress metrics`), config validation and the help
// texts read the metrics from here.
package workload

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/workload/attach"
	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/guest/workload/desc"
	"github.com/kregress/kregress/guest/workload/execve"
	"github.com/kregress/kregress/guest/workload/lrudrain"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/rstat"
)

// Env is where a workload finds the guest's files (desc.Env).
type Env = desc.Env

// GuestEnv is the guest image's layout (images/initramfs), with self the
// running kagent.
func GuestEnv(self string) Env { return desc.GuestEnv(self) }

// RunFunc runs a workload whose parameters have been parsed.
type RunFunc = desc.RunFunc

// A Workload is one thing kagent runs: its descriptor, which its own
// package declares.
type Workload struct{ desc.Workload }

// all are the workloads, in the order usage and docs list them: one line
// each, the whole of registering a workload.
var all = []Workload{
	{rstat.Workload},
	{execve.Workload},
	{attach.Workload},
	{lrudrain.Workload},
	{bench.Workload},
}

// bind declares the workload's parameters on fs and sets them to their
// defaults.
func (w Workload) bind(fs *flag.FlagSet, env Env) (validate func() error, run RunFunc) {
	validate, run = w.Bind(fs, env)
	param.Defaults(fs)
	return validate, run
}

// All lists the workloads.
func All() []Workload { return all }

// Names lists the workloads' names.
func Names() []string {
	names := make([]string, len(all))
	for i, w := range all {
		names[i] = w.Name
	}
	return names
}

// Lookup finds a workload by name.
func Lookup(name string) (Workload, error) {
	if w, ok := find(name); ok {
		return w, nil
	}
	return Workload{}, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Params lists the workload's parameters in name order.
func (w Workload) Params() []param.Spec {
	fs := flag.NewFlagSet(w.Name, flag.ContinueOnError)
	w.bind(fs, Env{})
	return param.Specs(fs)
}

// Parse parses the workload's command line (after `kagent run NAME`) and
// validates the parameters; parse errors and -h usage go to out.
func (w Workload) Parse(args []string, env Env, out io.Writer) (RunFunc, error) {
	fs := flag.NewFlagSet("run "+w.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	validate, run := w.bind(fs, env)
	fs.Usage = func() {
		fmt.Fprintf(out, "usage: %s\n", w.Usage())
		for _, s := range param.Specs(fs) {
			fmt.Fprintf(out, "  %s\n", s.Usage())
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", w.Name, err)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%s: unexpected argument %q (parameters are -name value)", w.Name, fs.Arg(0))
	}
	if err := validate(); err != nil {
		return nil, err
	}
	return run, nil
}

// Usage is the workload's usage line: `kagent run NAME [-param VALUE]...`.
func (w Workload) Usage() string {
	var b strings.Builder
	b.WriteString("kagent run " + w.Name)
	for _, s := range w.Params() {
		fmt.Fprintf(&b, " [-%s %s]", s.Name, s.Placeholder())
	}
	if w.Declared != "" {
		fmt.Fprintf(&b, " -%s DECLARATION", w.Declared)
	}
	return b.String()
}

// Sorted lists the workloads' names, sorted: as tables and help texts
// list them.
func Sorted() []string { return slices.Sorted(slices.Values(Names())) }

// find is the registered workload named name.
func find(name string) (Workload, bool) {
	for _, w := range all {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Metrics is what workload name reports, in its report's order; nil for
// an unknown workload.
func Metrics(name string) []metrics.Spec {
	w, _ := find(name)
	return slices.Clone(w.Metrics)
}

// Metric finds a metric of workload name by its name.
func Metric(name, metric string) (metrics.Spec, bool) {
	w, _ := find(name)
	return w.Metric(metric)
}

// MetricNames is workload name's metric names, for error messages.
func MetricNames(name string) []string {
	var out []string
	for _, s := range Metrics(name) {
		out = append(out, s.Name)
	}
	return out
}

// Primary is the metrics workload name is about (desc.Workload.Primary);
// nil for an unknown workload.
func Primary(name string) []string {
	w, _ := find(name)
	return w.Primary
}

// FallbackPrimary is judged instead of Primary(name) on a kernel that
// cannot produce it; nil when the workload has none.
func FallbackPrimary(name string) []string {
	w, _ := find(name)
	return w.FallbackPrimary
}

// AnyPrimary is every workload's primary metrics, sorted: for comparing
// stored runs whose workload the configuration at hand may not be (metric
// names are the workload's own, so only the right ones are found in the
// results).
func AnyPrimary() []string {
	var out []string
	for _, w := range all {
		out = append(out, w.Primary...)
	}
	slices.Sort(out)
	return out
}

// Needs is what metric of workload name needs of the kernel beyond the
// workload's basics (nil: nothing more, or no such metric).
func Needs(name, metric string) []probe.Need {
	s, _ := Metric(name, metric)
	return s.Needs
}

// Helpers lists the workloads' helper commands (`kagent NAME`), in
// registration order.
func Helpers() []desc.Helper {
	var out []desc.Helper
	for _, w := range all {
		out = append(out, w.Helpers...)
	}
	return out
}

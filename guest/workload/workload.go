// Package workload is the registry of what `kagent run` runs: each
// workload's name, its parameters (declared once, by its Params.Flags) and
// how it runs. kagent parses its command line here, and the host
// (orchestrator/pipeline) validates an experiment's workload by parsing the
// command line it will send here too, so the two cannot disagree.
package workload

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/workload/attach"
	"github.com/kregress/kregress/guest/workload/execve"
	"github.com/kregress/kregress/guest/workload/lrudrain"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/rstat"
)

// Env is where a workload finds the guest's files. Parameters are what an
// experiment chooses; these are facts of the guest image.
type Env struct {
	// Self is the kagent binary, re-executed as hogs and faulters.
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

// A Workload is one thing kagent runs.
type Workload struct {
	Name string
	// bind declares the workload's parameters on fs, bound to a Params
	// holding their defaults and env's paths, and returns that Params'
	// Validate and Run.
	bind func(fs *flag.FlagSet, env Env) (validate func() error, run RunFunc)
}

// RunFunc runs a workload whose parameters have been parsed.
type RunFunc func(ctx context.Context) (*agentproto.Document, error)

// all are the workloads, in the order usage and docs list them.
var all = []Workload{
	{Name: "rstat", bind: func(fs *flag.FlagSet, env Env) (func() error, RunFunc) {
		p := &rstat.Params{CgroupRoot: env.CgroupRoot, Tracefs: env.Tracefs, Proc: env.Proc}
		declare(fs, p)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return rstat.Run(ctx, *p, env.Self) }
	}},
	{Name: "execve", bind: func(fs *flag.FlagSet, env Env) (func() error, RunFunc) {
		p := &execve.Params{Doexec: env.Doexec, TmpDir: env.TmpDir, Tracefs: env.Tracefs}
		declare(fs, p)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return execve.Run(ctx, *p) }
	}},
	{Name: "cgroup-attach", bind: func(fs *flag.FlagSet, env Env) (func() error, RunFunc) {
		p := &attach.Params{CgroupRoot: env.CgroupRoot, Tracefs: env.Tracefs}
		declare(fs, p)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return attach.Run(ctx, *p) }
	}},
	{Name: "lru-drain", bind: func(fs *flag.FlagSet, env Env) (func() error, RunFunc) {
		p := &lrudrain.Params{SysctlDir: env.SysctlVM, Tracefs: env.Tracefs, Self: env.Self}
		declare(fs, p)
		return func() error { return p.Validate() }, func(ctx context.Context) (*agentproto.Document, error) { return lrudrain.Run(ctx, *p) }
	}},
}

// declare binds p's parameters to fs and sets them to their defaults.
func declare(fs *flag.FlagSet, p interface{ Flags(*flag.FlagSet) }) {
	p.Flags(fs)
	param.Defaults(fs)
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
	for _, w := range all {
		if w.Name == name {
			return w, nil
		}
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
	return b.String()
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/images/bundle"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/verdict"
)

// BenchmarkRefusedError is a benchmark declaration that cannot work on
// this host (no such program, a library that does not resolve, output
// the declared parser cannot read in a dry run): refused before anything
// builds, naming the line.
type BenchmarkRefusedError struct {
	Experiment string
	Err        *bench.Error
}

func (e *BenchmarkRefusedError) Error() string {
	return "experiment " + e.Experiment + ": " + e.Err.Error()
}

// ExitStatus is a usage error's: the declaration or the host must change.
func (e *BenchmarkRefusedError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// benchmarkFiles is what the image needs for the experiment's benchmark
// (nil without one): its program with its loader and libraries, and the
// files it copies. A program or library that is not on the host is a
// *BenchmarkRefusedError.
func benchmarkFiles(ctx context.Context, cfg *config.Config) ([]initramfs.File, error) {
	d := cfg.Workload.Benchmark
	if d == nil {
		return nil, nil
	}
	host, err := bundle.FindProgram(d.Program, cfg.Dir)
	if err != nil {
		return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "%v", err)}
	}
	files, err := bundle.Program(ctx, host, bench.GuestProgram(d.Program))
	if err != nil {
		var nf *bundle.NotFoundError
		if errors.As(err, &nf) {
			return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "%v", err)}
		}
		return nil, err
	}
	for i, c := range d.Copy {
		src := c.Host
		if !filepath.IsAbs(src) {
			src = filepath.Join(cfg.Dir, src)
		}
		more, err := bundle.Tree(src, c.Guest)
		if err != nil {
			return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse(fmt.Sprintf("copy[%d]", i), "%v", err)}
		}
		files = append(files, more...)
	}
	if err := bundle.CheckSize(files); err != nil {
		return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse("", "%v", err)}
	}
	out := make([]initramfs.File, len(files))
	for i, f := range files {
		out[i] = initramfs.File{Name: f.Name, Path: f.Path, Packed: true, Mode: f.Mode}
	}
	return out, nil
}

// checkBenchmark refuses, before anything builds, a benchmark the image
// could not hold (benchmarkFiles), and, when the declaration says the
// program is safe to run on the host (host_dry_run), one whose output
// the declared parser cannot read: the program runs once here as it
// would in the guest. Part of Preflight.
func checkBenchmark(ctx context.Context, cfg *config.Config, report progress.Reporter) error {
	d := cfg.Workload.Benchmark
	if d == nil {
		return nil
	}
	if _, err := benchmarkFiles(ctx, cfg); err != nil {
		return err
	}
	if !d.HostDryRun {
		return nil
	}
	host, _ := bundle.FindProgram(d.Program, cfg.Dir)
	dry := *d
	dry.Program = host
	report("benchmark: a dry run of %s on the host, to check its output parses", d.Program)
	out, err := bench.Exec(ctx, &dry)
	if err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "dry run on the host: %v", err)}
	}
	p, err := bench.NewParser(&dry)
	if err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("output", "%v", err)}
	}
	if _, err := p.Parse(out); err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("metrics", "dry run on the host: the output does not parse: %v; it ends:\n%s", err, bench.Tail(out, 1024))}
	}
	return nil
}

package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/images/bundle"
	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/store"
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
		var re *bundle.RefusedError
		if errors.As(err, &nf) || errors.As(err, &re) {
			return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "%v", err)}
		}
		return nil, err
	}
	for i, c := range d.Copy {
		key := fmt.Sprintf("copy[%d]", i)
		root, rel, err := copyRoot(cfg, c.Host)
		if err != nil {
			return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse(key, "%v", err)}
		}
		more, err := bundle.Tree(root, rel, c.Guest)
		if err != nil {
			return nil, &BenchmarkRefusedError{cfg.Experiment, d.Refuse(key, "%v", err)}
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

// copyRoot splits a copy's host path into the directory it must lie
// below and its path there (slash-separated, "." for the directory
// itself): the experiment file's directory for a relative path (which
// may not climb out of it), or, for an absolute one, a directory the
// command line allows (--benchmark-copy-from, cfg.BenchmarkCopyFrom).
// An experiment file is outside input: it packs into the guest, whose
// output comes back, nothing of the host it was not given.
func copyRoot(cfg *config.Config, host string) (root, rel string, err error) {
	if !filepath.IsAbs(host) {
		rel = filepath.Clean(host)
		if !filepath.IsLocal(rel) && rel != "." {
			return "", "", fmt.Errorf("host %q climbs out of the experiment's directory %s: refused (copy only what lies below it)", host, cfg.Dir)
		}
		return cfg.Dir, filepath.ToSlash(rel), nil
	}
	// The loader has made a relative path absolute, below Dir.
	for _, dir := range append([]string{cfg.Dir}, cfg.BenchmarkCopyFrom...) {
		dir = filepath.Clean(dir)
		if r, err := filepath.Rel(dir, filepath.Clean(host)); err == nil && (r == "." || filepath.IsLocal(r)) {
			return dir, filepath.ToSlash(r), nil
		}
	}
	return "", "", fmt.Errorf("host %q is outside the experiment's directory %s: refused (copy only what lies below it, or allow the directory with --benchmark-copy-from DIR)", host, cfg.Dir)
}

// checkBenchmark refuses, before anything builds, a benchmark the image
// could not hold (benchmarkFiles), and, when both the declaration
// (host_dry_run) and the command line (--benchmark-host-dry-run,
// cfg.BenchmarkHostDryRun) say the program may run on the host, one
// whose output the declared parser cannot read: the program runs once
// here as it would in the guest, with hostEnv, and whatever of its
// output an error shows is redacted (redactOutput). Part of Preflight.
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
	if !cfg.BenchmarkHostDryRun {
		report("benchmark: %s does not run on the host: host_dry_run asks for it, the command line did not (--benchmark-host-dry-run); its output is first read in the guest", d.Program)
		return nil
	}
	host, err := bundle.FindProgram(d.Program, cfg.Dir)
	if err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "%v", err)}
	}
	dry := *d
	dry.Program = host
	report("benchmark: a dry run of %s on the host (--benchmark-host-dry-run), to check its output parses", d.Program)
	out, err := bench.ExecIn(ctx, &dry, hostEnv())
	if err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("program", "dry run on the host: %s", redactOutput(cfg, err.Error()))}
	}
	p, err := bench.NewParser(&dry)
	if err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("output", "%v", err)}
	}
	if _, err := p.Parse(out); err != nil {
		return &BenchmarkRefusedError{cfg.Experiment, d.Refuse("metrics", "dry run on the host: the output does not parse: %s", redactOutput(cfg, fmt.Sprintf("%v; it ends:\n%s", err, bench.Tail(out, 1024))))}
	}
	return nil
}

// hostEnv is the whole environment of a benchmark's dry run on the host:
// where programs are, a home, the C locale and the temporary directory;
// nothing of kregress's own (KREGRESS_STORE may hold a password) nor
// the PostgreSQL client's (PGPASSWORD, PGSERVICEFILE).
func hostEnv() []string {
	env := []string{"LC_ALL=C", "TMPDIR=" + os.TempDir()}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// redactOutput takes the store's passwords out of text that carries a
// program's output (store.RedactText, as the store's own errors are):
// those of the store the command uses, of KREGRESS_STORE (which a flag
// may have overridden) and PGPASSWORD's. A program on the host can
// still read its parent's environment (/proc/PID/environ) or the
// user's files, and the error it earns is printed and may be kept in CI
// logs.
func redactOutput(cfg *config.Config, text string) string {
	for _, dsn := range []string{cfg.StoreSpec(), os.Getenv("KREGRESS_STORE")} {
		text = store.RedactText(text, dsn)
	}
	if pw := os.Getenv("PGPASSWORD"); pw != "" {
		text = strings.ReplaceAll(text, pw, store.Redacted)
	}
	return text
}

package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/stats"
)

// Name is the workload's name: what an experiment's workload.name and
// `kagent run` say.
const Name = "benchmark"

// SpecParam is the parameter that carries the encoded declaration: the
// host sets it from workload.benchmark, never from workload.params.
const SpecParam = "spec"

// tailBytes is how much of a run's output an error shows.
const tailBytes = 2048

// Params shape the workload.
type Params struct {
	Spec     string // Encode of the declaration
	Duration time.Duration
	Window   time.Duration
	Tracefs  string
}

// Flags declares the workload's parameters. The spec is a plain flag,
// not a param: the host writes it from the experiment's
// workload.benchmark, and workload.params cannot set it.
func (p *Params) Flags(fs *flag.FlagSet) {
	fs.StringVar(&p.Spec, SpecParam, "", "the benchmark's declaration (written by kregress from workload.benchmark)")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate checks the timing and the declaration.
func (p Params) Validate() error {
	if err := sampler.ValidateParams(Name, func(fs *flag.FlagSet) { sampler.TimingFlags(fs, &p.Duration, &p.Window) }, p.Duration, p.Window); err != nil {
		return err
	}
	if p.Spec == "" {
		return fmt.Errorf("%s: -%s is missing: kregress writes it from the experiment's workload.benchmark", Name, SpecParam)
	}
	_, err := Decode(p.Spec)
	return err
}

// Runner runs the program once and returns what the declaration reads
// (stdout, stderr or both); a run that fails or times out is an error
// carrying its output's tail.
type Runner func(ctx context.Context, d *Decl) ([]byte, error)

// Exec runs d's program as a child process in its own process group,
// killed (the whole group) at d's timeout or ctx's end, its output read
// within MaxOutput, with the caller's environment (kagent's, in the
// guest).
func Exec(ctx context.Context, d *Decl) ([]byte, error) {
	return ExecIn(ctx, d, os.Environ())
}

// ExecIn is Exec with env as the program's whole environment (and the
// image's LD_LIBRARY_PATH): the host's dry run gives it a minimal one.
func ExecIn(ctx context.Context, d *Decl, env []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, d.TimeoutD())
	defer cancel()
	cmd := exec.CommandContext(ctx, d.Program, d.Args...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(slices.Clone(env), "LD_LIBRARY_PATH="+LibraryPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var out []byte
	err := cmd.Run()
	switch d.Output.Stream {
	case "stderr":
		out = stderr.Bytes()
	case "both":
		out = append(stdout.Bytes(), stderr.Bytes()...)
	default:
		out = stdout.Bytes()
	}
	if err != nil {
		why := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = "timed out after " + d.Timeout
		}
		return out, fmt.Errorf("%s: %s; its output ends:\n%s%s", path.Base(d.Program), why, Tail(stdout.Bytes(), tailBytes), Tail(stderr.Bytes(), tailBytes))
	}
	if stdout.cut || stderr.cut {
		return out, fmt.Errorf("%s: printed more than %d bytes; its output ends:\n%s", path.Base(d.Program), MaxOutput, Tail(out, tailBytes))
	}
	return out, nil
}

// LibraryPath is where the image holds packed programs' libraries
// (images/bundle puts each at its host path; these are Debian's).
const LibraryPath = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib"

// capped keeps the first MaxOutput bytes written and says whether more
// came.
type capped struct {
	bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := MaxOutput - c.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return c.Buffer.Write(p)
}

var _ io.Writer = (*capped)(nil)

// Measure is the untraced half: d's warm-up runs (their output must parse
// too: a warm-up that prints nothing readable says the cell would) and
// its measured runs, each metric the median of its runs' values.
func Measure(ctx context.Context, d *Decl, run Runner) ([]agentproto.Metric, error) {
	p, err := NewParser(d)
	if err != nil {
		return nil, err
	}
	per := map[string][]float64{}
	for i := 0; i < d.Warmup+d.Runs; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, err := run(ctx, d)
		if err != nil {
			return nil, fmt.Errorf("%s: run %d: %w", Name, i+1, err)
		}
		vals, err := p.Parse(out)
		if err != nil {
			return nil, fmt.Errorf("%s: run %d: the output does not parse: %v; it ends:\n%s", Name, i+1, err, Tail(out, tailBytes))
		}
		if i < d.Warmup {
			continue
		}
		for k, v := range vals {
			per[k] = append(per[k], v)
		}
	}
	specs := d.Specs()
	var out []agentproto.Metric
	for _, s := range specs[:len(d.Metrics)] {
		out = append(out, s.Of(stats.Median(per[s.Name])))
	}
	return out, nil
}

// Run runs the workload: the untraced half (Measure), then the program
// again and again under the irqsoff tracer for half of p.Duration (at
// least one run), sampled every p.Window.
func Run(ctx context.Context, p Params, run Runner) (*agentproto.Document, error) {
	d, err := Decode(p.Spec)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	measured, err := Measure(ctx, d, run)
	if err != nil {
		return nil, err
	}
	untraced := time.Since(t0)
	tracedRuns := 0
	var failed error
	res, err := sampler.Run(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration-p.Duration/2, p.Window, func(c context.Context) {
		for {
			// The first traced run runs to its end even when it is longer
			// than the traced half: the figures are of whole runs.
			runCtx := c
			if tracedRuns == 0 {
				runCtx = ctx
			}
			if _, err := run(runCtx, d); err != nil {
				if runCtx.Err() == nil {
					failed = err
				}
				return
			}
			tracedRuns++
			if c.Err() != nil {
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, fmt.Errorf("%s: traced half: %w", Name, failed)
	}
	ph := &sampler.Phases{Untraced: untraced, Traced: res}
	params := map[string]string{
		"program": d.Program, "runs": strconv.Itoa(d.Runs), "warmup": strconv.Itoa(d.Warmup),
		"format": d.Output.Format, "duration": p.Duration.String(), "window": p.Window.String(),
		"traced_runs": strconv.Itoa(tracedRuns),
		"phases":      "warm-up and measured runs untraced, then the program repeated under the irqsoff tracer",
	}
	for i, a := range d.Args {
		params["arg"+strconv.Itoa(i)] = a
	}
	return ph.Document(Name, params, measured), nil
}

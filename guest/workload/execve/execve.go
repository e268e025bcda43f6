// Package execve is the execve scalability workload of the pcpu-counters
// seed: per worker (one per online CPU by default, each on its own CPU) a
// chain of execve()s of a statically linked binary, each worker from its
// own copy of it. Every
// execve builds and tears down an mm_struct, whose rss_stat percpu
// counters the seed's patch allocates in one go instead of one by one.
package execve

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/filecopy"
)

// Params shape the workload.
type Params struct {
	Workers  int // percpu.PerCPU: one per online CPU
	Chain    int // execs per started chain
	Duration time.Duration
	Window   time.Duration
	Doexec   string // the static helper
	TmpDir   string // where the per-worker copies go
	Tracefs  string
}

// Flags declares the workload's parameters, bound to p's fields: their
// one definition, which kagent parses with and the host validates with.
func (p *Params) Flags(fs *flag.FlagSet) {
	param.IntVar(fs, &p.Workers, "workers", percpu.PerCPU, 0, 4096, "exec chains in parallel, each started on an online CPU in turn; 0 for one per online CPU")
	param.IntVar(fs, &p.Chain, "chain", 100, 1, 1_000_000, "execve()s per chain")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate rejects parameters out of range.
func (p Params) Validate() error {
	return sampler.ValidateParams(Name, p.Flags, p.Duration, p.Window)
}

// Run runs the workload with parameters Validate accepted (workload.Parse
// validates them before it hands Run out).
func Run(ctx context.Context, p Params) (*agentproto.Document, error) {
	sp, err := percpu.Online()
	if err != nil {
		return nil, fmt.Errorf("execve: %w", err)
	}
	workers := sp.Count(p.Workers)
	params := map[string]string{
		"workers": strconv.Itoa(workers), "chain": strconv.Itoa(p.Chain),
		"duration": p.Duration.String(), "window": p.Window.String(),
	}
	// Separate binaries, as in the seed: no shared inode between workers.
	var bins []string
	for i := 0; i < workers; i++ {
		dst := filepath.Join(p.TmpDir, fmt.Sprintf("doexec.%d", i))
		if err := filecopy.Replace(p.Doexec, dst, 0o755); err != nil {
			return nil, fmt.Errorf("execve: %w", err)
		}
		defer os.Remove(dst)
		bins = append(bins, dst)
	}
	// Execs per worker, per half: [0] untraced (the throughput), [1]
	// under the irqsoff tracer.
	per := [2][]atomic.Int64{make([]atomic.Int64, workers), make([]atomic.Int64, workers)}
	var failed error
	ph, err := sampler.RunPhases(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, func(runCtx context.Context, traced bool) {
		half := 0
		if traced {
			half = 1
		}
		if failed == nil {
			failed = runWorkers(runCtx, sp, bins, p.Chain, per[half])
		}
	})
	if err != nil {
		return nil, err
	}
	if failed != nil {
		return nil, failed
	}
	var total, traced int64
	for i := 0; i < workers; i++ {
		total += per[0][i].Load()
		traced += per[1][i].Load()
	}
	secs := ph.Untraced.Seconds()
	params["phases"] = "first half untraced (execs), second half traced (irqs-off)"
	doc := ph.Document(Name, params, []agentproto.Metric{
		ExecsPerSec.Of(float64(total) / secs),
		ExecsPerSecPerWorker.Of(float64(total) / secs / float64(workers)),
		ExecsTotal.Of(float64(total)),
		ExecsPerSecTraced.Of(float64(traced) / ph.Traced.Elapsed.Seconds()),
		sp.Metric(),
	})
	doc.Warnings = append(doc.Warnings, sp.Warnings()...)
	return doc, nil
}

// runWorkers runs one worker per bin until ctx ends: worker i on sp's CPU
// i, its chains of chain execve()s of bins[i] started from a thread bound
// to that CPU, whose binding they inherit; each completed chain adds its
// execs to execs[i]. The first chain of each worker reports where it ran
// (as a zombie, before it is reaped). The first failure is returned.
func runWorkers(ctx context.Context, sp *percpu.Spread, bins []string, chain int, execs []atomic.Int64) error {
	var failed atomic.Value
	var wg sync.WaitGroup
	for i := range bins {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			a, err := sp.Pin(i)
			if err != nil {
				failed.Store(fmt.Errorf("execve: worker: %w", err))
				return
			}
			defer a.Release()
			for n := 0; ctx.Err() == nil; n++ {
				var out bytes.Buffer
				cmd := exec.Command(bins[i], strconv.Itoa(chain))
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Start()
				if err == nil {
					if n == 0 && percpu.WaitUnreaped(cmd.Process.Pid) == nil {
						sp.RanProcess(cmd.Process.Pid)
					}
					err = cmd.Wait()
				}
				if err != nil {
					failed.Store(fmt.Errorf("execve: %s: %v: %s", bins[i], err, out.Bytes()))
					return
				}
				// The chain's first process was forked; every link
				// after it is one execve.
				execs[i].Add(int64(chain))
			}
		}(i)
	}
	wg.Wait()
	if f, ok := failed.Load().(error); ok {
		return f
	}
	return nil
}

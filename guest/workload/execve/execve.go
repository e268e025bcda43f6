// Package execve is the execve scalability workload of the pcpu-counters
// seed: per worker (one per online CPU by default) a chain of execve()s of
// a statically linked binary, each worker from its own copy of it. Every
// execve builds and tears down an mm_struct, whose rss_stat percpu
// counters the seed's patch allocates in one go instead of one by one.
package execve

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/filecopy"
)

// Params shape the workload.
type Params struct {
	Workers  int // 0: one per online CPU
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
	param.IntVar(fs, &p.Workers, "workers", 0, 0, 4096, "exec chains in parallel, 0 for one per online CPU")
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
	workers := p.Workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
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
	var failed atomic.Value
	ph, err := sampler.RunPhases(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, func(runCtx context.Context, traced bool) {
		half := 0
		if traced {
			half = 1
		}
		var wg sync.WaitGroup
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				for runCtx.Err() == nil {
					cmd := exec.Command(bins[i], strconv.Itoa(p.Chain))
					if out, err := cmd.CombinedOutput(); err != nil {
						failed.Store(fmt.Errorf("execve: %s: %v: %s", bins[i], err, out))
						return
					}
					// The chain's first process was forked; every link
					// after it is one execve.
					per[half][i].Add(int64(p.Chain))
				}
			}(i)
		}
		wg.Wait()
	})
	if err != nil {
		return nil, err
	}
	if f, ok := failed.Load().(error); ok && f != nil {
		return nil, f
	}
	var total, traced int64
	for i := 0; i < workers; i++ {
		total += per[0][i].Load()
		traced += per[1][i].Load()
	}
	secs := ph.Untraced.Seconds()
	params["phases"] = "first half untraced (execs), second half traced (irqs-off)"
	return ph.Document(Name, params, []agentproto.Metric{
		ExecsPerSec.Of(float64(total) / secs),
		ExecsPerSecPerWorker.Of(float64(total) / secs / float64(workers)),
		ExecsTotal.Of(float64(total)),
		ExecsPerSecTraced.Of(float64(traced) / ph.Traced.Elapsed.Seconds()),
	}), nil
}

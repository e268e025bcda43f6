// Package lrudrain times lru_add_drain_all(), the remote drain of every
// CPU's LRU batches that the swap-pagevec seed made synchronous, with all
// CPUs idle and with all CPUs busy in user space.
//
// The drain is triggered through a sysctl whose handler calls it first:
// /proc/sys/vm/drop_caches (then drops the guest's few clean page-cache
// pages) or /proc/sys/vm/compact_memory (then compacts all memory, which
// costs far more than the drain), so a sample is the drain plus that
// handler's own work: the idle/busy and variant differences are the
// drain's, the absolute figures an upper bound.
//
// Busy CPUs touch fresh anonymous pages in a loop: every fault adds a
// folio to its CPU's LRU batch, so every drain finds every CPU's batch
// non-empty — the case the seed measured ("ensured that it would invoke
// the drain function") and the one where the shipped code must queue work
// on each busy CPU and wait for it to run there. Each busy worker is its
// own process (`kagent faulter`), one per online CPU by default, each
// started bound to its own CPU: as threads of one process, every
// MADV_DONTNEED shot down the TLBs of all CPUs by IPI, and at 8 vCPUs under
// TCG that IPI storm, with the irqsoff tracer's global max_trace_lock taken
// at the end of every new-maximum section, stalled guests of both variants
// for minutes (soft-lockup backtraces: every CPU in stop_critical_timing or
// smp_call_function_many_cond).
package lrudrain

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/stats"
)

// Params shape the workload.
type Params struct {
	// Faulters is how many busy workers fault pages in the busy phase;
	// percpu.PerCPU: one per online CPU.
	Faulters int
	Pause    time.Duration // between two drains
	Duration time.Duration // split evenly: idle phase, then busy phase
	Window   time.Duration
	// Trigger is the sysctl (one of Triggers) whose write drains;
	// empty stands for the default, drop_caches.
	Trigger string
	// SysctlDir holds the triggers: /proc/sys/vm.
	SysctlDir string
	Tracefs   string
	// Self is the kagent binary, re-executed as `kagent faulter` for each
	// busy worker.
	Self string
}

// Triggers are the sysctls that call lru_add_drain_all() first thing.
var Triggers = []string{"drop_caches", "compact_memory"}

// Flags declares the workload's parameters, bound to p's fields: their
// one definition, which kagent parses with and the host validates with.
func (p *Params) Flags(fs *flag.FlagSet) {
	param.ChoiceVar(fs, &p.Trigger, "trigger", Triggers[0], Triggers,
		"the sysctl whose write drains every CPU's LRU batches (`compact_memory` needs CONFIG_COMPACTION)")
	param.IntVar(fs, &p.Faulters, "faulters", percpu.PerCPU, 0, 4096,
		"page-faulting processes while the CPUs are busy, each started on an online CPU in turn; 0 for one per online CPU")
	param.DurationVar(fs, &p.Pause, "pause", 20*time.Millisecond, time.Millisecond, time.Second, "pause between two drains")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate rejects parameters out of range.
func (p Params) Validate() error {
	return sampler.ValidateParams(Name, p.Flags, p.Duration, p.Window)
}

// triggerPath is the sysctl file Run writes.
func (p Params) triggerPath() string {
	t := p.Trigger
	if t == "" {
		t = Triggers[0]
	}
	return filepath.Join(p.SysctlDir, t)
}

// Run runs the workload with parameters Validate accepted (workload.Parse
// validates them before it hands Run out).
func Run(ctx context.Context, p Params) (*agentproto.Document, error) {
	trigger := p.triggerPath()
	if _, err := os.Stat(trigger); err != nil {
		hint := ""
		if strings.HasSuffix(trigger, "compact_memory") {
			hint = "build the kernel with CONFIG_COMPACTION=y (fragment lru.config): "
		}
		return nil, fmt.Errorf("lru-drain: %s missing: %s%w", trigger, hint, err)
	}
	sp, err := percpu.Online()
	if err != nil {
		return nil, fmt.Errorf("lru-drain: %w", err)
	}
	faulters := sp.Count(p.Faulters)
	// Each half of duration (untraced, then under the irqsoff tracer)
	// times drains with the CPUs idle, then busy. The drain figures come
	// from the untraced half: the tracer taxes every irq toggle of the
	// drain's IPIs and kworkers, and the traced half's busy median is
	// reported beside them (info) to show that tax.
	var idle, busy [2][]float64
	var runErr error
	ph, err := sampler.RunPhases(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, func(runCtx context.Context, traced bool) {
		h := 0
		if traced {
			h = 1
		}
		if runErr != nil {
			return
		}
		idle[h], busy[h], runErr = idleThenBusy(runCtx, p, sp, faulters)
	})
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, runErr
	}
	for h, name := range []string{"untraced", "traced"} {
		if len(idle[h]) == 0 || len(busy[h]) == 0 {
			return nil, fmt.Errorf("lru-drain: no drain completed in the %s half (idle %d, busy %d samples)", name, len(idle[h]), len(busy[h]))
		}
	}
	var ms []agentproto.Metric
	for _, phase := range []struct {
		p50, p99, max, samples metrics.Spec
		v                      []float64
	}{
		{DrainIdleP50, DrainIdleP99, DrainIdleMax, DrainIdleSamples, idle[0]},
		{DrainBusyP50, DrainBusyP99, DrainBusyMax, DrainBusySamples, busy[0]},
	} {
		sort.Float64s(phase.v)
		ms = append(ms,
			phase.p50.Of(stats.NearestRank(phase.v, 0.5)),
			phase.p99.Of(stats.NearestRank(phase.v, 0.99)),
			phase.max.Of(phase.v[len(phase.v)-1]),
			phase.samples.Of(float64(len(phase.v))),
		)
	}
	sort.Float64s(busy[1])
	ms = append(ms, DrainBusyP50Traced.Of(stats.NearestRank(busy[1], 0.5)), sp.Metric())
	doc := ph.Document(Name, map[string]string{
		"pause": p.Pause.String(), "duration": p.Duration.String(), "window": p.Window.String(), "trigger": trigger,
		"busy_threads": strconv.Itoa(faulters),
	}, ms)
	doc.Warnings = append(doc.Warnings, sp.Warnings()...)
	return doc, nil
}

// idleThenBusy times drains until ctx's deadline: the first half of the
// time with the CPUs idle, the second with faulters page-faulting
// processes, faulter i started bound to sp's CPU i. Each faulter reports
// where it ran once the busy drains are timed, before it is killed.
func idleThenBusy(ctx context.Context, p Params, sp *percpu.Spread, faulters int) (idle, busy []float64, err error) {
	dl, ok := ctx.Deadline()
	if !ok {
		return nil, nil, fmt.Errorf("lru-drain: phase without a deadline")
	}
	half, cancel := context.WithTimeout(ctx, time.Until(dl)/2)
	idle, err = drainLoop(half, p)
	cancel()
	if err != nil || ctx.Err() != nil {
		return idle, nil, err
	}
	var workers []*exec.Cmd
	defer func() {
		for _, w := range workers {
			w.Process.Kill()
			w.Wait()
		}
	}()
	for i := 0; i < faulters; i++ {
		cmd, err := startFaulter(p.Self, sp, i)
		if err != nil {
			return idle, nil, err
		}
		workers = append(workers, cmd)
	}
	busy, err = drainLoop(ctx, p)
	if len(busy) > 0 {
		for _, w := range workers {
			sp.RanProcess(w.Process.Pid)
		}
	}
	return idle, busy, err
}

// startFaulter starts busy worker i (`self faulter`) from a thread bound
// to sp's CPU i: the process keeps that binding.
func startFaulter(self string, sp *percpu.Spread, i int) (*exec.Cmd, error) {
	a, err := sp.Pin(i)
	if err != nil {
		return nil, fmt.Errorf("lru-drain: busy worker: %w", err)
	}
	defer a.Release()
	cmd := exec.Command(self, "faulter")
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lru-drain: start busy worker %s faulter: %w", self, err)
	}
	return cmd, nil
}

// Faulter is `kagent faulter`: a busy worker of the lru-drain workload,
// faulting pages until it is killed.
func Faulter() error {
	faultLoop(context.Background())
	return nil
}

// faultLoop touches fresh anonymous pages until ctx ends: each first touch
// faults in a new folio, which lands in this CPU's lru_add batch;
// MADV_DONTNEED then unmaps them so the next pass faults again.
func faultLoop(ctx context.Context) {
	const size = 2 << 20
	buf, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return
	}
	defer syscall.Munmap(buf)
	page := os.Getpagesize()
	for ctx.Err() == nil {
		for off := 0; off < size; off += page {
			buf[off] = 1
		}
		syscall.Madvise(buf, 4) // MADV_DONTNEED
	}
}

func drainLoop(ctx context.Context, p Params) ([]float64, error) {
	var lat []float64
	for ctx.Err() == nil {
		t0 := time.Now()
		if err := os.WriteFile(p.triggerPath(), []byte("1"), 0o200); err != nil {
			return lat, fmt.Errorf("lru-drain: write %s: %w", p.triggerPath(), err)
		}
		lat = append(lat, float64(time.Since(t0).Nanoseconds())/1000)
		select {
		case <-ctx.Done():
		case <-time.After(p.Pause):
		}
	}
	return lat, nil
}

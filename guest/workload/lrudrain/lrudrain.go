// Package lrudrain times lru_add_drain_all(), the remote drain of every
// CPU's LRU batches that the swap-pagevec seed made synchronous, with all
// CPUs idle and with all CPUs busy. It triggers the drain through
// /proc/sys/vm/compact_memory (compact_nodes() drains first), so each
// sample also includes one compaction pass over a small, mostly idle
// guest: the busy/idle difference is the drain's (queued work must wait
// for busy CPUs), the absolute figures are an upper bound.
package lrudrain

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/guest/workload/sampler"
)

// Params shape the workload.
type Params struct {
	Pause    time.Duration // between two drains
	Duration time.Duration // split evenly: idle phase, then busy phase
	Window   time.Duration
	Trigger  string // normally /proc/sys/vm/compact_memory
	Tracefs  string
}

// Validate rejects parameters out of range.
func (p Params) Validate() error {
	if p.Pause < time.Millisecond || p.Pause > time.Second {
		return fmt.Errorf("lru-drain: pause=%s out of range 1ms..1s", p.Pause)
	}
	return sampler.ValidateTiming("lru-drain", p.Duration, p.Window)
}

// Run runs the workload.
func Run(ctx context.Context, p Params) (*report.Document, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if _, err := os.Stat(p.Trigger); err != nil {
		return nil, fmt.Errorf("lru-drain: %s missing: build the kernel with CONFIG_COMPACTION=y (fragment lru.config): %w", p.Trigger, err)
	}
	var idle, busy []float64
	var runErr error
	res, err := sampler.Run(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, func(runCtx context.Context) {
		half, cancel := context.WithTimeout(runCtx, p.Duration/2)
		idle, runErr = drainLoop(half, p)
		cancel()
		if runErr != nil || runCtx.Err() != nil {
			return
		}
		// Busy phase: one spinning thread per CPU.
		spin, stop := context.WithCancel(runCtx)
		var wg sync.WaitGroup
		for i := 0; i < runtime.NumCPU(); i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				x := 0
				for spin.Err() == nil {
					for j := 0; j < 1<<16; j++ {
						x += j
					}
				}
				_ = x
			}()
		}
		busy, runErr = drainLoop(runCtx, p)
		stop()
		wg.Wait()
	})
	if err != nil {
		return nil, err
	}
	if runErr != nil {
		return nil, runErr
	}
	if len(idle) == 0 || len(busy) == 0 {
		return nil, fmt.Errorf("lru-drain: no drain completed (idle %d, busy %d samples)", len(idle), len(busy))
	}
	doc := &report.Document{Workload: "lru-drain", DurationSec: res.Elapsed.Seconds(), Irqsoff: res.Irqsoff, Params: map[string]string{
		"pause": p.Pause.String(), "duration": p.Duration.String(), "window": p.Window.String(), "trigger": p.Trigger,
		"busy_threads": strconv.Itoa(runtime.NumCPU()),
	}}
	for _, phase := range []struct {
		name string
		v    []float64
	}{{"idle", idle}, {"busy", busy}} {
		sort.Float64s(phase.v)
		doc.Metrics = append(doc.Metrics,
			report.Metric{Name: "drain_" + phase.name + "_p50_us", Unit: "us", Direction: report.LowerIsBetter, Value: ftrace.Quantile(phase.v, 0.5)},
			report.Metric{Name: "drain_" + phase.name + "_p99_us", Unit: "us", Direction: report.LowerIsBetter, Value: ftrace.Quantile(phase.v, 0.99)},
			report.Metric{Name: "drain_" + phase.name + "_max_us", Unit: "us", Direction: report.LowerIsBetter, Value: phase.v[len(phase.v)-1]},
			report.Metric{Name: "drain_" + phase.name + "_samples", Unit: "drains", Direction: report.Informational, Value: float64(len(phase.v))},
		)
	}
	doc.Metrics = append(doc.Metrics, sampler.IrqsoffMetrics(res.Irqsoff, "")...)
	return doc, nil
}

func drainLoop(ctx context.Context, p Params) ([]float64, error) {
	var lat []float64
	for ctx.Err() == nil {
		t0 := time.Now()
		if err := os.WriteFile(p.Trigger, []byte("1"), 0o200); err != nil {
			return lat, fmt.Errorf("lru-drain: write %s: %w", p.Trigger, err)
		}
		lat = append(lat, float64(time.Since(t0).Nanoseconds())/1000)
		select {
		case <-ctx.Done():
		case <-time.After(p.Pause):
		}
	}
	return lat, nil
}

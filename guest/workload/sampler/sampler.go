// Package sampler runs a workload body for a duration under the irqsoff
// tracer, closing a sampling window every period, and turns the windows
// into the metrics every workload reports.
package sampler

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/report"
)

// ValidateTiming checks a workload's duration and sampling window.
func ValidateTiming(workload string, duration, window time.Duration) error {
	switch {
	case duration < time.Second || duration > time.Hour:
		return fmt.Errorf("%s: duration=%s out of range 1s..1h", workload, duration)
	case window < 100*time.Millisecond || window > duration:
		return fmt.Errorf("%s: window=%s out of range 100ms..duration", workload, window)
	}
	return nil
}

// Result is what the sampled run produced.
type Result struct {
	Elapsed time.Duration
	Irqsoff *report.Irqsoff
}

// Run starts the irqsoff tracer, runs body(ctx) with a ctx that ends after
// duration, samples the tracer every window, and stops it.
func Run(ctx context.Context, fs ftrace.FS, duration, window time.Duration, body func(ctx context.Context)) (*Result, error) {
	irq, err := ftrace.StartIrqsoff(fs)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	start := time.Now()
	done := make(chan struct{})
	go func() {
		body(runCtx)
		close(done)
	}()
	tick := time.NewTicker(window)
	defer tick.Stop()
	var sampleErr error
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			if err := irq.Sample(); err != nil && sampleErr == nil {
				sampleErr = err
			}
		}
	}
	elapsed := time.Since(start)
	if err := irq.Sample(); err != nil && sampleErr == nil {
		sampleErr = err
	}
	res, err := irq.Stop(window)
	if sampleErr != nil {
		return nil, sampleErr
	}
	if err != nil {
		return nil, err
	}
	return &Result{Elapsed: elapsed, Irqsoff: res}, nil
}

// IrqsoffMetrics are the metrics every workload reports from its windows:
// the worst section, the median window, and (when heldBy is not empty)
// the share of windows whose worst section mentions heldBy.
func IrqsoffMetrics(irq *report.Irqsoff, heldBy string) []report.Metric {
	if irq == nil {
		return nil
	}
	var ws []float64
	held := 0
	for _, w := range irq.Windows {
		ws = append(ws, float64(w.LatencyUS))
		if heldBy != "" && ftrace.HeldBy(w, heldBy) {
			held++
		}
	}
	sort.Float64s(ws)
	worst := 0.0
	if irq.Worst != nil {
		worst = float64(irq.Worst.LatencyUS)
	}
	m := []report.Metric{
		{Name: "irqsoff_worst_us", Unit: "us", Direction: report.LowerIsBetter, Value: worst},
		{Name: "irqsoff_window_p50_us", Unit: "us", Direction: report.LowerIsBetter, Value: ftrace.Quantile(ws, 0.5)},
	}
	if heldBy != "" {
		share := 0.0
		if len(irq.Windows) > 0 {
			share = 100 * float64(held) / float64(len(irq.Windows))
		}
		m = append(m, report.Metric{Name: "irqsoff_" + heldBy + "_windows_pct", Unit: "%", Direction: report.LowerIsBetter, Value: share})
	}
	return m
}

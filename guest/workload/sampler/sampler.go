// Package sampler runs a workload body for a duration under the irqsoff
// tracer, closing a sampling window every period, and turns the windows
// into the metrics every workload reports.
package sampler

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/internal/stats"
)

// The parameters every workload has: how long it runs (set by the host
// from the experiment's workload.duration, not from its params) and its
// sampling window.
const (
	DurationParam = "duration"
	WindowParam   = "window"
)

// TimingFlags declares the duration and window parameters, bound to
// duration and window, on a workload's flag set.
func TimingFlags(fs *flag.FlagSet, duration, window *time.Duration) {
	param.DurationVar(fs, duration, DurationParam, 10*time.Second, time.Second, time.Hour, "how long the workload runs: half untraced, half traced")
	param.DurationVar(fs, window, WindowParam, time.Second, 100*time.Millisecond, time.Hour, "the sampling window of throughputs and of the irqs-off tracer, at most the traced phase")
}

// ValidateTiming checks a workload's window against its duration (each
// within its own bounds, TimingFlags): the traced half holds a window.
func ValidateTiming(workload string, duration, window time.Duration) error {
	switch {
	case window > duration:
		return fmt.Errorf("%s: window=%s is longer than duration=%s", workload, window, duration)
	case window > duration/2:
		return fmt.Errorf("%s: window=%s is longer than the traced half of duration=%s (the first half runs untraced)", workload, window, duration)
	}
	return nil
}

// ValidateParams is the Validate of a workload whose duration is split in
// halves: its declared parameters within their bounds
// (param.CheckDeclared), then its window against its duration
// (ValidateTiming).
func ValidateParams(workload string, declare func(fs *flag.FlagSet), duration, window time.Duration) error {
	if err := param.CheckDeclared(workload, declare); err != nil {
		return err
	}
	return ValidateTiming(workload, duration, window)
}

// ValidateSplit checks a duration whose traced phase lasts traced instead
// of half of it: each phase must hold at least one window.
func ValidateSplit(workload string, duration, traced, window time.Duration) error {
	switch {
	case traced < window || traced >= duration:
		return fmt.Errorf("%s: traced=%s out of range window (%s) .. duration (%s)", workload, traced, window, duration)
	case duration-traced < window:
		return fmt.Errorf("%s: traced=%s leaves %s untraced, less than one window (%s)", workload, traced, duration-traced, window)
	}
	return nil
}

// Phases is what RunPhases measured.
type Phases struct {
	// Untraced is the untraced half's elapsed time: throughput and
	// latency figures come from it.
	Untraced time.Duration
	// Traced is the traced half: irqs-off figures come from it.
	Traced *Result
}

// RunPhases runs body twice: for the first half of duration with nothing
// traced, then under the irqsoff tracer (sampled every window) for the
// rest. The tracer taxes every irq toggle, so a variant that toggles more
// would look slower than it is if its throughput were measured under it
// (the observer effect); body is told which half it runs in, and keeps
// its figures apart.
func RunPhases(ctx context.Context, fs ftrace.FS, duration, window time.Duration, body func(ctx context.Context, traced bool), extra ...Periodic) (*Phases, error) {
	half := duration / 2
	plainCtx, cancel := context.WithTimeout(ctx, half)
	t0 := time.Now()
	body(plainCtx, false)
	untraced := time.Since(t0)
	cancel()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := Run(ctx, fs, duration-half, window, func(c context.Context) { body(c, true) }, extra...)
	if err != nil {
		return nil, err
	}
	return &Phases{Untraced: untraced, Traced: res}, nil
}

// Document is the document of a workload that ran in ph: both phases'
// time, the traced phase's irqs-off figures, params, and metrics followed
// by the irqs-off metrics every workload reports.
func (ph *Phases) Document(workload string, params map[string]string, metrics []agentproto.Metric) *agentproto.Document {
	return &agentproto.Document{
		Workload: workload, Params: params,
		DurationSec: ph.Untraced.Seconds() + ph.Traced.Elapsed.Seconds(),
		Irqsoff:     ph.Traced.Irqsoff,
		Metrics:     append(metrics, IrqsoffMetrics(ph.Traced.Irqsoff, nil)...),
	}
}

// Result is what the sampled run produced.
type Result struct {
	Elapsed time.Duration
	Irqsoff *agentproto.Irqsoff
}

// Periodic is extra work the sampling loop does every Period while the
// body runs (e.g. draining a trace pipe before its buffer fills).
type Periodic struct {
	Period time.Duration
	Fn     func() error
}

// Every returns a Periodic; a nil fn is skipped.
func Every(period time.Duration, fn func() error) Periodic { return Periodic{period, fn} }

// Run starts the irqsoff tracer, runs body(ctx) with a ctx that ends after
// duration, samples the tracer every window (and runs each periodic task
// every its period), and stops the tracer. It returns when body does.
func Run(ctx context.Context, fs ftrace.FS, duration, window time.Duration, body func(ctx context.Context), extra ...Periodic) (*Result, error) {
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
	note := func(err error) {
		if err != nil && sampleErr == nil {
			sampleErr = err
		}
	}
	// One ticker per periodic task, fanned into one channel.
	fire := make(chan int, len(extra))
	for i, e := range extra {
		if e.Fn == nil || e.Period <= 0 {
			continue
		}
		t := time.NewTicker(e.Period)
		defer t.Stop()
		go func(i int, c <-chan time.Time) {
			for {
				select {
				case <-c:
					select {
					case fire <- i:
					default: // the loop is busy: skip this tick
					}
				case <-done:
					return
				}
			}
		}(i, t.C)
	}
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			note(irq.Sample())
		case i := <-fire:
			note(extra[i].Fn())
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
// the worst section, the median window, and (when heldBy is not nil, a
// holder its workload classifies windows by) the share of windows whose
// worst section mentions heldBy.Substr.
func IrqsoffMetrics(irq *agentproto.Irqsoff, heldBy *metrics.Holder) []agentproto.Metric {
	if irq == nil {
		return nil
	}
	var ws []float64
	for _, w := range irq.Windows {
		ws = append(ws, float64(w.LatencyUS))
	}
	sort.Float64s(ws)
	worst := 0.0
	if irq.Worst != nil {
		worst = float64(irq.Worst.LatencyUS)
	}
	m := []agentproto.Metric{
		metrics.IrqsoffWorst.Of(worst),
		metrics.IrqsoffWindowP50.Of(stats.NearestRank(ws, 0.5)),
	}
	if heldBy != nil {
		m = append(m, heldBy.Share.Of(heldShare(irq, heldBy.Substr)))
	}
	return m
}

// heldShare is the percentage of irq's windows whose worst section
// mentions substr (0 with no windows).
func heldShare(irq *agentproto.Irqsoff, substr string) float64 {
	if len(irq.Windows) == 0 {
		return 0
	}
	held := 0
	for _, w := range irq.Windows {
		if ftrace.HeldBy(w, substr) {
			held++
		}
	}
	return 100 * float64(held) / float64(len(irq.Windows))
}

package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/orchestrator/hostload"
)

// loadWatch samples the host's 1-minute load average while the bench
// measures. Every figure here is wall time under TCG, which scales with
// what else the host runs (several times over for a cold build), so the
// page says the load its figures were taken under rather than leave a
// reader to assume an idle machine.
type loadWatch struct {
	mu      sync.Mutex
	samples []float64
	stop    chan struct{}
	done    chan struct{}
}

// watchLoad starts sampling /proc every interval until stop is called.
func watchLoad(interval time.Duration) *loadWatch {
	w := &loadWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			w.sample()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

func (w *loadWatch) sample() {
	s, err := hostload.Read("/proc")
	if err != nil && s.Load1 == 0 {
		return // no reading: the summary counts only real samples
	}
	w.mu.Lock()
	w.samples = append(w.samples, s.Load1)
	w.mu.Unlock()
}

// summary stops sampling and describes the load: median and maximum of
// the 1-minute load average against the host's cores.
func (w *loadWatch) summary() string {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return describeLoad(w.samples, runtime.NumCPU())
}

// describeLoad is the summary's text. Its median is stats.Median, as
// every other figure's on the page.
func describeLoad(samples []float64, cores int) string {
	if len(samples) == 0 {
		return "not sampled (/proc/loadavg unreadable)"
	}
	return fmt.Sprintf("1-minute load average median %.1f, max %.1f on %d cores (%d samples)", stats.Median(samples), slices.Max(samples), cores, len(samples))
}

// Package attach is the cgroup attach latency workload of the cpuset seed:
// movers shuttle processes between two cpuset cgroups (each move is a
// write to cgroup.procs, which takes the cpuset lock in can_attach/attach)
// while another thread rewrites one cgroup's cpuset.cpus. A percpu_rwsem
// writer waits for an RCU grace period on every acquisition; a mutex does
// not: attach latency shows which one the kernel has.
package attach

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/sampler"
)

// Params shape the workload.
type Params struct {
	Movers int
	// Pause between two moves of one mover. 0 moves back to back, which
	// keeps a percpu_rwsem's rcu_sync in its writer state (no grace
	// period per write); a pause longer than that state's lifetime makes
	// every move pay a grace period, as sporadic attaches (the seed's
	// KVM_CREATE_VM) do.
	Pause      time.Duration
	Duration   time.Duration
	Window     time.Duration
	CgroupRoot string
	Tracefs    string
}

// Flags declares the workload's parameters, bound to p's fields: their
// one definition, which kagent parses with and the host validates with.
func (p *Params) Flags(fs *flag.FlagSet) {
	param.IntVar(fs, &p.Movers, "movers", 2, 1, 1024, "threads moving a pid between cpuset cgroups")
	param.DurationVar(fs, &p.Pause, "pause", 0, 0, time.Second, "pause between two moves of one mover (`50ms`: sporadic attaches)")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate rejects parameters out of range.
func (p Params) Validate() error {
	fs := flag.NewFlagSet("cgroup-attach", flag.ContinueOnError)
	p.Flags(fs)
	if err := param.Check(fs); err != nil {
		return fmt.Errorf("cgroup-attach: %w", err)
	}
	return sampler.ValidateTiming("cgroup-attach", p.Duration, p.Window)
}

// Run runs the workload.
func Run(ctx context.Context, p Params) (*agentproto.Document, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	online, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	all := strings.TrimSpace(string(online))
	a, b, err := setup(p.CgroupRoot, all)
	if err != nil {
		return nil, err
	}
	defer os.Remove(a)
	defer os.Remove(b)

	// Moves are timed in the untraced half only; the traced half gives
	// the irqs-off figures and its move rate (informational).
	var mu sync.Mutex
	var lat []float64
	var tracedMoves atomic.Int64
	var writes atomic.Int64
	var firstErr atomic.Value
	ph, err := sampler.RunPhases(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, func(runCtx context.Context, traced bool) {
		var wg sync.WaitGroup
		for i := 0; i < p.Movers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				child := exec.Command("/bin/sleep", "3600")
				if err := child.Start(); err != nil {
					firstErr.Store(err)
					return
				}
				defer func() { child.Process.Kill(); child.Wait() }()
				pid := []byte(strconv.Itoa(child.Process.Pid))
				var mine []float64
				for n := 0; runCtx.Err() == nil; n++ {
					dst := a
					if n%2 == 1 {
						dst = b
					}
					t0 := time.Now()
					if err := os.WriteFile(filepath.Join(dst, "cgroup.procs"), pid, 0o644); err != nil {
						firstErr.Store(fmt.Errorf("cgroup-attach: move to %s: %w", dst, err))
						return
					}
					mine = append(mine, float64(time.Since(t0).Nanoseconds())/1000)
					if p.Pause > 0 {
						time.Sleep(p.Pause)
					}
				}
				if traced {
					tracedMoves.Add(int64(len(mine)))
					return
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Rewrite a's cpus: all CPUs, then the first only.
			first := strings.SplitN(strings.SplitN(all, ",", 2)[0], "-", 2)[0]
			for n := 0; runCtx.Err() == nil; n++ {
				v := all
				if n%2 == 1 {
					v = first
				}
				if err := os.WriteFile(filepath.Join(a, "cpuset.cpus"), []byte(v), 0o644); err != nil {
					firstErr.Store(fmt.Errorf("cgroup-attach: write cpuset.cpus: %w", err))
					return
				}
				writes.Add(1)
				time.Sleep(max(time.Millisecond, p.Pause))
			}
		}()
		wg.Wait()
	})
	if err != nil {
		return nil, err
	}
	if e, ok := firstErr.Load().(error); ok && e != nil {
		return nil, e
	}
	if len(lat) == 0 {
		return nil, errors.New("cgroup-attach: no move completed")
	}
	sort.Float64s(lat)
	secs := ph.Untraced.Seconds()
	doc := &agentproto.Document{Workload: "cgroup-attach", DurationSec: secs + ph.Traced.Elapsed.Seconds(), Irqsoff: ph.Traced.Irqsoff, Params: map[string]string{
		"movers": strconv.Itoa(p.Movers), "pause": p.Pause.String(), "duration": p.Duration.String(), "window": p.Window.String(), "cpus": all,
		"phases": "first half untraced (moves, latency), second half traced (irqs-off)",
	}}
	doc.Metrics = append([]agentproto.Metric{
		metrics.AttachesPerSec.Of(float64(len(lat)) / secs),
		metrics.AttachLatencyP50.Of(ftrace.Quantile(lat, 0.5)),
		metrics.AttachLatencyP99.Of(ftrace.Quantile(lat, 0.99)),
		metrics.AttachLatencyMax.Of(lat[len(lat)-1]),
		metrics.CpusetCPUsWrites.Of(float64(writes.Load())),
		metrics.AttachesPerSecTraced.Of(float64(tracedMoves.Load()) / ph.Traced.Elapsed.Seconds()),
	}, sampler.IrqsoffMetrics(ph.Traced.Irqsoff, "")...)
	return doc, nil
}

// setup enables the cpuset controller and makes two cpuset cgroups.
func setup(root, cpus string) (string, string, error) {
	ctl := filepath.Join(root, "cgroup.subtree_control")
	cur, err := os.ReadFile(ctl)
	if err != nil {
		return "", "", fmt.Errorf("cgroup-attach: cgroup v2 not mounted at %s: %w", root, err)
	}
	if !strings.Contains(string(cur), "cpuset") {
		if err := os.WriteFile(ctl, []byte("+cpuset"), 0o644); err != nil {
			return "", "", fmt.Errorf("cgroup-attach: enable cpuset controller (is CONFIG_CPUSETS set?): %w", err)
		}
	}
	var dirs []string
	for _, name := range []string{"kregress-attach-a", "kregress-attach-b"} {
		d := filepath.Join(root, name)
		os.Remove(d)
		if err := os.Mkdir(d, 0o755); err != nil {
			return "", "", fmt.Errorf("cgroup-attach: %w", err)
		}
		if err := os.WriteFile(filepath.Join(d, "cpuset.cpus"), []byte(cpus), 0o644); err != nil {
			return "", "", fmt.Errorf("cgroup-attach: %s cpuset.cpus: %w", name, err)
		}
		dirs = append(dirs, d)
	}
	return dirs[0], dirs[1], nil
}

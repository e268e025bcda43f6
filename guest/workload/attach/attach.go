// Package attach is the cgroup attach latency workload of the cpuset seed:
// movers (one per online CPU by default, each on its own CPU) shuttle
// processes between two cpuset cgroups (each move is a
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
	"github.com/kregress/kregress/guest/sysinfo"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/stats"
)

// Params shape the workload.
type Params struct {
	Movers int // percpu.PerCPU: one per online CPU
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
	param.IntVar(fs, &p.Movers, "movers", percpu.PerCPU, 0, 1024, "threads moving a pid between cpuset cgroups, each pinned to an online CPU in turn; 0 for one per online CPU")
	param.DurationVar(fs, &p.Pause, "pause", 0, 0, time.Second, "pause between two moves of one mover (`50ms`: sporadic attaches)")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate rejects parameters out of range.
func (p Params) Validate() error {
	return sampler.ValidateParams(Name, p.Flags, p.Duration, p.Window)
}

// Run runs the workload with parameters Validate accepted (workload.Parse
// validates them before it hands Run out).
func Run(ctx context.Context, p Params) (*agentproto.Document, error) {
	online, err := sysinfo.OnlineCPUs()
	if err != nil {
		return nil, fmt.Errorf("cgroup-attach: %w", err)
	}
	sp, err := percpu.New(online, percpu.OS{})
	if err != nil {
		return nil, fmt.Errorf("cgroup-attach: %w", err)
	}
	all := sysinfo.FormatCPUList(online)
	a, b, err := setup(p.CgroupRoot, all)
	if err != nil {
		return nil, err
	}
	defer os.Remove(a)
	defer os.Remove(b)

	r := &attachRun{p: p, movers: sp.Count(p.Movers), sp: sp, a: a, b: b, all: all, first: strconv.Itoa(online[0])}
	ph, err := sampler.RunPhases(ctx, ftrace.FS{Root: p.Tracefs}, p.Duration, p.Window, r.phase)
	if err != nil {
		return nil, err
	}
	if e, ok := r.firstErr.Load().(error); ok && e != nil {
		return nil, e
	}
	lat := r.lat
	if len(lat) == 0 {
		return nil, errors.New("cgroup-attach: no move completed")
	}
	sort.Float64s(lat)
	secs := ph.Untraced.Seconds()
	doc := ph.Document(Name, map[string]string{
		"movers": strconv.Itoa(r.movers), "pause": p.Pause.String(), "duration": p.Duration.String(), "window": p.Window.String(), "cpus": all,
		"phases": "first half untraced (moves, latency), second half traced (irqs-off)",
	}, []agentproto.Metric{
		AttachesPerSec.Of(float64(len(lat)) / secs),
		AttachLatencyP50.Of(stats.NearestRank(lat, 0.5)),
		AttachLatencyP99.Of(stats.NearestRank(lat, 0.99)),
		AttachLatencyMax.Of(lat[len(lat)-1]),
		CpusetCPUsWrites.Of(float64(r.writes.Load())),
		AttachesPerSecTraced.Of(float64(r.tracedMoves.Load()) / ph.Traced.Elapsed.Seconds()),
		sp.Metric(),
	})
	doc.Warnings = append(doc.Warnings, sp.Warnings()...)
	return doc, nil
}

// attachRun is the workload's figures as its phases gather them. Moves are
// timed in the untraced half only; the traced half gives the irqs-off
// figures and its move rate (informational).
type attachRun struct {
	p      Params
	movers int // resolved: p.Movers, or one per online CPU
	sp     *percpu.Spread
	a, b   string // the two cpuset cgroups
	all    string // the online CPUs
	first  string // the first online CPU
	mu     sync.Mutex
	lat    []float64 // the untraced moves' latencies, us
	writes atomic.Int64
	// tracedMoves counts the traced half's moves.
	tracedMoves atomic.Int64
	firstErr    atomic.Value
}

// phase runs the movers and the cpuset.cpus writer until ctx ends.
func (r *attachRun) phase(ctx context.Context, traced bool) {
	var wg sync.WaitGroup
	for i := 0; i < r.movers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.move(ctx, traced, i)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.rewriteCPUs(ctx)
	}()
	wg.Wait()
}

// move shuttles a sleeping child between the two cgroups until ctx ends,
// timing every move, as mover i: from a thread bound to its CPU. The
// child is started before, free to run on every CPU of its cpuset as it
// was when movers were not bound.
func (r *attachRun) move(ctx context.Context, traced bool, i int) {
	child := exec.Command("/bin/sleep", "3600")
	if err := child.Start(); err != nil {
		r.firstErr.Store(err)
		return
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	a, err := r.sp.Pin(i)
	if err != nil {
		r.firstErr.Store(fmt.Errorf("cgroup-attach: mover: %w", err))
		return
	}
	defer a.Release()
	pid := []byte(strconv.Itoa(child.Process.Pid))
	var mine []float64
	for n := 0; ctx.Err() == nil; n++ {
		dst := r.a
		if n%2 == 1 {
			dst = r.b
		}
		t0 := time.Now()
		if err := os.WriteFile(filepath.Join(dst, "cgroup.procs"), pid, 0o644); err != nil {
			r.firstErr.Store(fmt.Errorf("cgroup-attach: move to %s: %w", dst, err))
			return
		}
		mine = append(mine, float64(time.Since(t0).Nanoseconds())/1000)
		if n == 0 {
			a.Ran()
		}
		if r.p.Pause > 0 {
			time.Sleep(r.p.Pause)
		}
	}
	if traced {
		r.tracedMoves.Add(int64(len(mine)))
		return
	}
	r.mu.Lock()
	r.lat = append(r.lat, mine...)
	r.mu.Unlock()
}

// rewriteCPUs rewrites a's cpus until ctx ends: all CPUs, then the first
// only.
func (r *attachRun) rewriteCPUs(ctx context.Context) {
	for n := 0; ctx.Err() == nil; n++ {
		v := r.all
		if n%2 == 1 {
			v = r.first
		}
		if err := os.WriteFile(filepath.Join(r.a, "cpuset.cpus"), []byte(v), 0o644); err != nil {
			r.firstErr.Store(fmt.Errorf("cgroup-attach: write cpuset.cpus: %w", err))
			return
		}
		r.writes.Add(1)
		time.Sleep(max(time.Millisecond, r.p.Pause))
	}
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

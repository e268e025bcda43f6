// Package rstat is the memory.stat workload of the rstat flush seed: reader
// threads read a test memory cgroup's memory.stat in a loop while memory-hog
// processes charge that cgroup until the OOM killer stops them, and start
// again. Every read flushes rstat, which takes cgroup_rstat_lock with irqs
// off: the lock whose hold pattern the rstat patches change.
package rstat

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	catalog "github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/sampler"
	"github.com/kregress/kregress/internal/stats"
)

// Params shape the workload; the seed ran one reader and one hog per CPU
// of a machine of hundreds, and so do the defaults.
type Params struct {
	Readers    int // percpu.PerCPU: one per online CPU
	Hogs       int // HogsPerCPU: one per online CPU
	Duration   time.Duration
	HogLimitMB int
	// HogMode is HogOOM (the seed's shape, and the default) or HogSteady.
	HogMode string
	Window  time.Duration
	// Traced is how long the second, traced phase lasts; 0 means half of
	// Duration. Lock hold tails depend on how many of the kernel's
	// periodic memcg flushes (one every 2 s) fall in it: a traced phase
	// of a whole number of those periods holds the same number on every
	// boot, a 5 s one two or three (README, "What this setup can see").
	Traced     time.Duration
	CgroupRoot string
	Tracefs    string
	Proc       string // procfs mount, normally /proc
}

// Flags declares the workload's parameters, bound to p's fields: their
// one definition (name, default, bounds, doc), which kagent parses with
// and the host validates with.
func (p *Params) Flags(fs *flag.FlagSet) {
	param.IntVar(fs, &p.Readers, "readers", percpu.PerCPU, 0, 4096, "threads reading `memory.stat` in a loop, each pinned to an online CPU in turn; 0 for one per online CPU")
	param.IntVar(fs, &p.Hogs, "hogs", HogsPerCPU, HogsPerCPU, 4096, "processes charging memory inside the cgroup, each started on an online CPU in turn; -1 for one per online CPU, 0 for none")
	param.IntVar(fs, &p.HogLimitMB, "hog-limit-mb", 64, 8, 1<<20, "the cgroup's `memory.max`, MiB")
	param.ChoiceVar(fs, &p.HogMode, "hog-mode", HogOOM, []string{HogOOM, HogSteady},
		"`oom`: hogs charge until the OOM killer ends them and are restarted (the seed's benchmark); `steady`: each charges and uncharges 1 MiB at a time in a ring of its share of half the limit")
	param.DurationVar(fs, &p.Traced, "traced", 0, 0, time.Hour,
		"the traced phase's length, 0 for half of `duration` (`traced: 4s` of 10 s: 6 s untraced, then 4 s traced)")
	sampler.TimingFlags(fs, &p.Duration, &p.Window)
}

// Validate rejects parameters out of range before anything is set up.
func (p Params) Validate() error {
	if err := param.CheckDeclared(Name, p.Flags); err != nil {
		return err
	}
	if p.Traced == 0 {
		return sampler.ValidateTiming(Name, p.Duration, p.Window)
	}
	return sampler.ValidateSplit(Name, p.Duration, p.Traced, p.Window)
}

// phases returns how long the untraced and the traced phase last.
func (p Params) phases() (untraced, traced time.Duration) {
	traced = p.Traced
	if traced == 0 {
		traced = p.Duration - p.Duration/2
	}
	return p.Duration - traced, traced
}

// Map renders the parameters for the report.
func (p Params) Map() map[string]string {
	m := map[string]string{
		"readers":      strconv.Itoa(p.Readers),
		"hogs":         strconv.Itoa(p.Hogs),
		"duration":     p.Duration.String(),
		"hog_limit_mb": strconv.Itoa(p.HogLimitMB),
		"hog_mode":     p.hogMode(),
		"window":       p.Window.String(),
	}
	// Only when set, so that runs stored before the parameter existed
	// keep comparing equal with runs that do not use it.
	if p.Traced != 0 {
		m["traced"] = p.Traced.String()
	}
	return m
}

const cgroupName = "kregress-rstat"

// HogsPerCPU is the hogs parameter's value for one hog per online CPU
// (0 is none).
const HogsPerCPU = -1

// resolve is p with its actor counts as they run on sp's CPUs: one reader
// and one hog per online CPU where p asks for that.
func (p Params) resolve(sp *percpu.Spread) Params {
	p.Readers = sp.Count(p.Readers)
	if p.Hogs == HogsPerCPU {
		p.Hogs = sp.Count(percpu.PerCPU)
	}
	return p
}

// The hog modes: how the hogs load the test cgroup's memory counters.
const (
	// HogOOM is the seed's shape: every hog charges memory until the OOM
	// killer ends it, and is started again.
	HogOOM = "oom"
	// HogSteady keeps every hog alive: it charges 1 MiB and uncharges
	// another in a ring below memory.max, the same stream of memcg stat
	// updates without the kill-and-restart cycle, whose kills and execs
	// land in one window or another. It narrows the spread of one boot's
	// windows; at 2 vCPUs most of the rest is QEMU's turns between vCPUs
	// (README, "What this setup can see"; the figures:
	// docs/design-notes.md, "Figures behind choices in the code").
	HogSteady = "steady"
)

func (p Params) hogMode() string {
	if p.HogMode == "" {
		return HogOOM
	}
	return p.HogMode
}

// hogArgs are the arguments of `self` that start one hog of p's mode.
func (p Params) hogArgs() []string {
	if p.hogMode() == HogOOM {
		return []string{"hog"}
	}
	// Half of memory.max shared between the hogs: no hog ever meets the
	// limit, and the readers' own charges have room.
	mb := p.HogLimitMB / 2 / max(p.Hogs, 1)
	return []string{"hog", "-steady-mb", strconv.Itoa(max(mb, 1))}
}

// Run runs the workload with parameters Validate accepted (workload.Parse
// validates them before it hands Run out); self is the path of the kagent
// binary, re-executed as `self hog` for every memory hog.
func Run(ctx context.Context, p Params, self string) (*agentproto.Document, error) {
	sp, err := percpu.Online()
	if err != nil {
		return nil, fmt.Errorf("rstat: %w", err)
	}
	p = p.resolve(sp)
	doc := &agentproto.Document{Workload: Name, Params: p.Map()}
	cg, err := setupCgroup(p.CgroupRoot, int64(p.HogLimitMB)<<20)
	if err != nil {
		return nil, err
	}
	defer os.Remove(cg)

	// Every OOM kill prints a report; on the guest's emulated serial
	// console that printing runs with irqs off for milliseconds and would
	// be the worst irqs-off section of every window. Keep the reports in
	// the kernel log only, for the workload's duration.
	restore := quietConsole(p.Proc)
	defer restore()
	doc.Params["console_loglevel"] = "1 during the run (OOM reports off the serial console)"

	statPath := filepath.Join(cg, "memory.stat")
	// Two phases, halves unless Traced says otherwise. The first measures
	// throughput and read latency with nothing traced: the irqsoff tracer
	// and the lock events tax every irq toggle and lock hold, so the
	// variants that toggle more would pay more (the observer effect). The
	// second traces the irqs-off
	// sections and the rstat lock holds, and its throughput is reported
	// as reads_per_sec_traced (informational) to show what tracing costs.
	untraced, tracedFor := p.phases()
	doc.Params["phases"] = fmt.Sprintf("%s untraced (throughput, read latency), then %s traced (irqs-off, lock holds)", untraced, tracedFor)
	plainCtx, cancelPlain := context.WithTimeout(ctx, untraced)
	plain := readPhase(plainCtx, p, sp, self, cg, statPath, nil)
	cancelPlain()
	if plain.err != nil {
		return nil, plain.err
	}

	fs := ftrace.FS{Root: p.Tracefs}
	locks, heldBy := probeLocks(fs, p, doc)
	traced, res, err := tracedPhase(ctx, fs, p, sp, self, cg, statPath, tracedFor, locks)
	if err != nil {
		return nil, err
	}
	doc.Irqsoff = res.Irqsoff
	var holds []ftrace.Hold
	if locks != nil {
		if doc.LockHolds, err = stopLocks(locks, doc); err != nil {
			return nil, err
		}
		holds = locks.Holds()
	}
	ooms := readOOMKills(cg)
	if p.Hogs > 0 && ooms == 0 && p.hogMode() == HogOOM {
		doc.Warnings = append(doc.Warnings, "no OOM kill happened: the hogs never reached memory.max")
	}

	doc.DurationSec = plain.elapsed.Seconds() + traced.elapsed.Seconds()
	rate, how := plain.rate()
	doc.Params["reads_per_sec"] = how
	doc.WindowRates = map[string][]float64{"reads_per_sec": plain.windows}
	doc.Metrics, doc.Histograms = metrics(rate, plain.reads, plain.lat, res.Irqsoff, heldBy, doc.LockHolds, holds, ownThreads(), ooms, plain.restarts+traced.restarts)
	if traced.elapsed > 0 {
		doc.Metrics = append(doc.Metrics, ReadsPerSecTraced.Of(float64(traced.reads)/traced.elapsed.Seconds()))
	}
	doc.Metrics = append(doc.Metrics, sp.Metric())
	doc.Warnings = append(doc.Warnings, sp.Warnings()...)
	return doc, nil
}

// tracedPhase runs the readers and hogs for tracedFor under the irqsoff
// tracer, recording the lock's holds when locks is not nil.
func tracedPhase(ctx context.Context, fs ftrace.FS, p Params, sp *percpu.Spread, self, cg, statPath string, tracedFor time.Duration, locks *ftrace.LockHolds) (phase, *sampler.Result, error) {
	var drain func() error
	if locks != nil {
		drain = locks.Drain
	}
	// The lock holds are recorded from the traced phase's start until its
	// readers stop: not while the irqsoff tracer is set up and torn down
	// or the hogs exit, which take a varying share of a second under TCG.
	// Recording those too made the window longer than the phase by a
	// varying amount, so the number of the kernel's periodic flushes (long
	// holds) it held depended on how long the teardown took, and that
	// count decided the p99 of all holds. The readers stop at the phase's
	// deadline, but recording stops only once they have; RecordFor keeps
	// the holds that start within the phase's length, so that slack
	// cannot let in one more periodic flush either.
	var traced phase
	var recErr error
	res, err := sampler.Run(ctx, fs, tracedFor, p.Window, func(runCtx context.Context) {
		var readersDone func()
		if locks != nil {
			recErr = locks.RecordFor(tracedFor)
			readersDone = func() { recErr = errors.Join(recErr, locks.Record(false)) }
		}
		traced = readPhase(runCtx, p, sp, self, cg, statPath, readersDone)
	}, sampler.Every(100*time.Millisecond, drain))
	if err != nil {
		return traced, nil, err
	}
	if traced.err != nil {
		return traced, nil, traced.err
	}
	if recErr != nil {
		return traced, nil, fmt.Errorf("rstat: lock hold recording: %w", recErr)
	}
	return traced, res, nil
}

// probeLocks sets up recording the rstat lock's holds, and names the
// holder the irqs-off windows are classified by, as far as the kernel
// allows. Probe, don't assume: the lock-hold tracepoints came in 6.10,
// and the holder classifier needs functions named *rstat*. What this
// kernel lacks is reported unavailable in doc, with what is missing; a
// recorder that cannot be set up, as a warning. locks is nil when holds
// are not recorded, heldBy nil when windows are not classified.
func probeLocks(fs ftrace.FS, p Params, doc *agentproto.Document) (locks *ftrace.LockHolds, heldBy *catalog.Holder) {
	kern := &probe.Kernel{Tracefs: p.Tracefs, Proc: p.Proc}
	doc.Unavailable = kern.Unmeasurable(probed)
	unavailable := map[string]bool{}
	for _, u := range doc.Unavailable {
		unavailable[u.Metric] = true
	}
	if !unavailable[RstatLockHoldP50.Name] {
		var lerr error
		locks, lerr = ftrace.NewLockHolds(fs, "kregress-rstat", "cgroup_rstat_lock",
			"cgroup/cgroup_rstat_locked", "cgroup/cgroup_rstat_unlock")
		if lerr != nil {
			locks = nil
			doc.Warnings = append(doc.Warnings, "rstat lock holds not measured: "+lerr.Error())
		}
	}
	if !unavailable[holder.Share.Name] {
		heldBy = holder
	}
	return locks, heldBy
}

// stopLocks stops recording the lock's holds and returns their summary;
// lost events are a warning in doc.
func stopLocks(locks *ftrace.LockHolds, doc *agentproto.Document) (*agentproto.LockHolds, error) {
	holds, err := locks.Stop()
	if err != nil {
		return nil, err
	}
	if holds.Lost > 0 {
		doc.Warnings = append(doc.Warnings, fmt.Sprintf("%d rstat lock events lost (ring buffer full)", holds.Lost))
	}
	return holds, nil
}

// phase is what one half of the run measured.
type phase struct {
	reads    int64
	lat      [][]float32
	elapsed  time.Duration // the readers' time, not the hogs' teardown
	restarts int64
	// windows: reads per second in each whole window of the phase.
	windows []float64
	err     error
}

// rate is the phase's throughput for the report, and how it was taken:
// the mean of its windows after the first, when at least two follow it.
// The first window holds the hogs' start (exec of kagent, page
// faults of a fresh cgroup). Under icount, the windows of one boot differ
// (an OOM kill and the hogs' restart land in one window or another) while
// boots differ by little more than that sampling noise, so the mean over
// more windows (a longer duration) is
// what narrows it; it is still one value per boot, and the boots stay the
// samples the comparison tests.
func (ph phase) rate() (float64, string) {
	if len(ph.windows) >= 3 {
		sum := 0.0
		for _, w := range ph.windows[1:] {
			sum += w
		}
		return sum / float64(len(ph.windows)-1), fmt.Sprintf("mean of %d windows after the first (warm-up)", len(ph.windows)-1)
	}
	if ph.elapsed <= 0 {
		return 0, "no reads"
	}
	return float64(ph.reads) / ph.elapsed.Seconds(), "reads over the whole untraced half (fewer than 3 windows)"
}

// readPhase runs the hogs and the reader threads until ctx ends, reader i
// and hog i on sp's CPU i; a non-nil readersDone is called as soon as the
// readers have stopped, before the hogs are stopped and waited for. p's
// counts are resolved (Params.resolve).
func readPhase(ctx context.Context, p Params, sp *percpu.Spread, self, cg, statPath string, readersDone func()) phase {
	// A failed reader ends the phase early for everyone.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var reads atomic.Int64
	var readErr atomic.Value
	lat := make([][]float32, p.Readers)
	start := time.Now()
	hogs := startHogs(runCtx, p.Hogs, sp, self, p.hogArgs(), cg)
	windows := make(chan []float64, 1)
	go func() { windows <- countWindows(runCtx, p.Window, reads.Load) }()
	var wg sync.WaitGroup
	for i := 0; i < p.Readers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// A reader is a thread, as in the seed's stat_reader,
			// bound to its own CPU: every CPU's reads flush.
			a, err := sp.Pin(i)
			if err != nil {
				readErr.Store(fmt.Errorf("rstat: reader: %w", err))
				cancel()
				return
			}
			defer a.Release()
			for n := 0; runCtx.Err() == nil; n++ {
				t0 := time.Now()
				if _, err := os.ReadFile(statPath); err != nil {
					readErr.Store(fmt.Errorf("rstat: read %s: %w", statPath, err))
					cancel()
					return
				}
				lat[i] = append(lat[i], float32(time.Since(t0).Nanoseconds())/1000)
				reads.Add(1)
				if n == 0 {
					a.Ran()
				}
			}
		}(i)
	}
	wg.Wait()
	if readersDone != nil {
		readersDone()
	}
	ph := phase{reads: reads.Load(), lat: lat, elapsed: time.Since(start)}
	cancel()
	ph.windows = <-windows
	ph.restarts = hogs.wait()
	if e, ok := readErr.Load().(error); ok && e != nil {
		ph.err = e
	} else if e, ok := hogs.err.Load().(error); ok && e != nil {
		ph.err = e
	}
	return ph
}

// countWindows samples count every window until ctx ends and returns the
// rate (per second) of every whole window.
func countWindows(ctx context.Context, window time.Duration, count func() int64) []float64 {
	if window <= 0 {
		return nil
	}
	tick := time.NewTicker(window)
	defer tick.Stop()
	return rateOnTicks(ctx, time.Now(), tick.C, count)
}

// rateOnTicks is countWindows's loop with the clock passed in, so a test can
// drive it with ticks it chooses rather than with the scheduler's timing.
func rateOnTicks(ctx context.Context, start time.Time, ticks <-chan time.Time, count func() int64) []float64 {
	var rates []float64
	last, at := count(), start
	for {
		select {
		case <-ctx.Done():
			return rates
		case now := <-ticks:
			c := count()
			rates = append(rates, float64(c-last)/now.Sub(at).Seconds())
			last, at = c, now
		}
	}
}

// quietConsole lowers the console loglevel to 1 (emergencies, so a panic
// still shows) and turns off the OOM killer's task dump; it returns a
// function restoring both.
func quietConsole(proc string) func() {
	if proc == "" {
		proc = "/proc"
	}
	files := map[string]string{
		filepath.Join(proc, "sys/kernel/printk"):     "1",
		filepath.Join(proc, "sys/vm/oom_dump_tasks"): "0",
	}
	saved := map[string][]byte{}
	for f, v := range files {
		if old, err := os.ReadFile(f); err == nil {
			saved[f] = old
			os.WriteFile(f, []byte(v), 0o644)
		}
	}
	return func() {
		for f, old := range saved {
			// printk shows four numbers; writing the first restores
			// the console level, which is the one changed.
			os.WriteFile(f, []byte(strings.Fields(string(old))[0]), 0o644)
		}
	}
}

// setupCgroup enables the memory controller below root and creates the test
// cgroup with memory.max set, so the hogs are OOM-killed and restart.
func setupCgroup(root string, limit int64) (string, error) {
	ctl := filepath.Join(root, "cgroup.subtree_control")
	cur, err := os.ReadFile(ctl)
	if err != nil {
		return "", fmt.Errorf("rstat: cgroup v2 not mounted at %s: %w", root, err)
	}
	if !strings.Contains(string(cur), "memory") {
		if err := os.WriteFile(ctl, []byte("+memory"), 0o644); err != nil {
			return "", fmt.Errorf("rstat: enable memory controller in %s (is CONFIG_MEMCG set?): %w", ctl, err)
		}
	}
	cg := filepath.Join(root, cgroupName)
	if err := os.Remove(cg); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("rstat: remove stale cgroup %s: %w", cg, err)
	}
	if err := os.Mkdir(cg, 0o755); err != nil {
		return "", fmt.Errorf("rstat: create cgroup %s: %w", cg, err)
	}
	if err := os.WriteFile(filepath.Join(cg, "memory.max"), []byte(strconv.FormatInt(limit, 10)), 0o644); err != nil {
		return "", fmt.Errorf("rstat: set %s/memory.max: %w", cg, err)
	}
	return cg, nil
}

type hogSet struct {
	wg       sync.WaitGroup
	restarts atomic.Int64
	err      atomic.Value // a hog that could not be pinned
}

// startHogs keeps n hog processes (`self args...`) alive in cgroup cg until
// ctx ends, hog i started from a thread bound to sp's CPU i, whose
// binding it inherits: the memcg counters the flush walks are updated on
// every CPU.
func startHogs(ctx context.Context, n int, sp *percpu.Spread, self string, args []string, cg string) *hogSet {
	h := &hogSet{}
	for i := 0; i < n; i++ {
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			a, err := sp.Pin(i)
			if err != nil {
				h.err.Store(fmt.Errorf("rstat: hog: %w", err))
				return
			}
			defer a.Release()
			for ctx.Err() == nil {
				dir, err := os.Open(cg)
				if err != nil {
					return
				}
				cmd := exec.CommandContext(ctx, self, args...)
				// Born inside the cgroup (clone3 CLONE_INTO_CGROUP):
				// no window where it charges the root cgroup.
				cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(dir.Fd())}
				err = cmd.Start()
				dir.Close()
				if err != nil {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				cmd.Wait()
				if ctx.Err() == nil {
					h.restarts.Add(1)
				}
			}
		}()
	}
	return h
}

func (h *hogSet) wait() int64 {
	h.wg.Wait()
	return h.restarts.Load()
}

func readOOMKills(cg string) int64 {
	b, err := os.ReadFile(filepath.Join(cg, "memory.events"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "oom_kill" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// Pow2Bucket returns the histogram bucket of v: 0 for v < 1, else i such
// that 2^(i-1) <= v < 2^i.
func Pow2Bucket(v float64) int {
	if v < 1 {
		return 0
	}
	return bits.Len64(uint64(v))
}

// pow2Histogram counts values into Pow2Bucket buckets.
func pow2Histogram(values []float64) agentproto.Histogram {
	h := agentproto.Histogram{Unit: "us"}
	for _, v := range values {
		b := Pow2Bucket(v)
		for len(h.Buckets) <= b {
			h.Buckets = append(h.Buckets, 0)
		}
		h.Buckets[b]++
	}
	return h
}

// metrics turns the phases' measurements into the report's metrics and
// histograms; holds are the traced half's rstat lock holds, and isReader
// says which of their tasks are this workload's readers.
func metrics(rate float64, reads int64, lat [][]float32, irq *agentproto.Irqsoff, heldBy *catalog.Holder, locks *agentproto.LockHolds, holds []ftrace.Hold, isReader func(pid int32) bool, ooms, restarts int64) ([]agentproto.Metric, map[string]agentproto.Histogram) {
	var all []float64
	for _, l := range lat {
		for _, v := range l {
			all = append(all, float64(v))
		}
	}
	hists := map[string]agentproto.Histogram{"read_latency_us": pow2Histogram(all)}
	if len(holds) > 0 {
		// The shape behind rstat_lock_hold_p99_us: under icount a hold
		// that straddles the other vCPU's turn on the one host thread
		// lasts that turn, a second mode far above the first.
		hists["rstat_lock_hold_us"] = pow2Histogram(ftrace.HoldTimes(holds, nil))
	}
	sort.Float64s(all)
	m := []agentproto.Metric{
		ReadsPerSec.Of(rate),
		ReadsTotal.Of(float64(reads)),
		ReadLatencyP50.Of(stats.NearestRank(all, 0.5)),
		ReadLatencyP99.Of(stats.NearestRank(all, 0.99)),
		OOMKills.Of(float64(ooms)),
		HogRestarts.Of(float64(restarts)),
	}
	m = append(m, sampler.IrqsoffMetrics(irq, heldBy)...)
	if locks != nil && locks.Count > 0 {
		m = append(m,
			RstatLockHolds.Of(float64(locks.Count)),
			RstatLockHoldP50.Of(locks.P50US),
			RstatLockHoldP99.Of(locks.P99US),
			RstatLockHoldMax.Of(locks.MaxUS),
		)
	}
	// The readers' own flushes, apart from the kernel's: the memcg
	// periodic flusher (a kworker) flushes from the root and holds the
	// lock longer, and at about one of its holds per hundred of the
	// readers' it puts the all-holds p99 on the edge between two clusters
	// of hold times, so that p99 jumps from boot to boot without anything
	// changing.
	if readers := ftrace.HoldTimes(holds, isReader); len(readers) > 0 {
		sum := ftrace.Summarise("", readers)
		m = append(m,
			RstatLockHoldsReaders.Of(float64(sum.Count)),
			RstatLockHoldReaderP50.Of(sum.P50US),
			RstatLockHoldReaderP99.Of(sum.P99US),
		)
	}
	return m, hists
}

// ownThreads reports whether a task is a thread of this process: the
// readers are goroutines of the agent, the hogs are processes of their own
// and the kernel's flushers are kworkers.
func ownThreads() func(pid int32) bool {
	tasks, err := os.ReadDir("/proc/self/task")
	own := map[int32]bool{}
	if err == nil {
		for _, t := range tasks {
			if tid, err := strconv.Atoi(t.Name()); err == nil {
				own[int32(tid)] = true
			}
		}
	}
	return func(pid int32) bool { return own[pid] }
}

// SteadyHog charges and uncharges its cgroup 1 MiB at a time in a ring of
// mb MiB: each step drops the ring's oldest MiB (MADV_DONTNEED uncharges
// it) and touches it again. It never returns on its own.
func SteadyHog(mb int) error {
	if mb < 1 {
		return fmt.Errorf("hog: steady footprint %d MiB: want at least 1", mb)
	}
	const chunk = 1 << 20
	page := os.Getpagesize()
	ring, err := syscall.Mmap(-1, 0, mb*chunk, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("hog: mmap %d MiB: %w", mb, err)
	}
	for i := 0; ; i = (i + 1) % mb {
		c := ring[i*chunk : (i+1)*chunk]
		if err := syscall.Madvise(c, syscall.MADV_DONTNEED); err != nil {
			return fmt.Errorf("hog: madvise: %w", err)
		}
		for off := 0; off < chunk; off += page {
			c[off] = 1
		}
	}
}

// Hog charges memory to its cgroup, 1 MiB at a time, touching every page,
// until the OOM killer ends it. It never returns on its own.
func Hog() error {
	const chunk = 1 << 20
	page := os.Getpagesize()
	for {
		b, err := syscall.Mmap(-1, 0, chunk, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return fmt.Errorf("hog: mmap: %w", err)
		}
		for i := 0; i < chunk; i += page {
			b[i] = 1
		}
	}
}

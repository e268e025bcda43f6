// Package ftrace drives the kernel's tracefs from inside the guest: the
// irqsoff latency tracer (sampled in windows) and tracepoint pairs that
// bracket a lock hold. It only reads and writes tracefs files, so the
// parsing half is testable on the host with recorded text.
package ftrace

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace/ringbuf"
)

// DefaultRoot is where the guest's init mounts tracefs.
const DefaultRoot = "/sys/kernel/tracing"

// FS is a mounted tracefs (or an instance directory inside one).
type FS struct{ Root string }

func (f FS) path(name string) string { return filepath.Join(f.Root, name) }

// Write writes value to a tracefs file, naming the file on failure.
func (f FS) Write(name, value string) error {
	if err := os.WriteFile(f.path(name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("tracefs: write %q to %s: %w", value, name, err)
	}
	return nil
}

// Read reads a tracefs file.
func (f FS) Read(name string) (string, error) {
	b, err := os.ReadFile(f.path(name))
	if err != nil {
		return "", fmt.Errorf("tracefs: read %s: %w", name, err)
	}
	return string(b), nil
}

// ReadValue reads a one-value tracefs file (tracing_max_latency and the
// like) with a single read(2) from offset 0. os.ReadFile reads until EOF in
// several calls, and these files are re-rendered on every call: when the
// value changes between calls ("4" becomes "142"), the second call returns
// the new text's tail after the old length and the result is torn ("4\n2\n").
// One read of a buffer larger than any such value cannot tear.
func (f FS) ReadValue(name string) (string, error) {
	fh, err := os.Open(f.path(name))
	if err != nil {
		return "", fmt.Errorf("tracefs: read %s: %w", name, err)
	}
	defer fh.Close()
	buf := make([]byte, 4096)
	n, err := fh.Read(buf)
	if err != nil && n == 0 && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("tracefs: read %s: %w", name, err)
	}
	return string(buf[:n]), nil
}

// Irqsoff runs the irqsoff tracer and samples its maximum in windows: one
// maximum over a whole run under TCG is mostly host noise (a vCPU thread
// descheduled while the guest has irqs off), so the distribution of window
// maxima and which code held each is the more honest signal.
type Irqsoff struct {
	fs      FS
	windows []agentproto.Section
	worst   *agentproto.Section
	trace   string
}

// StartIrqsoff selects the irqsoff tracer and resets its maximum.
func StartIrqsoff(fs FS) (*Irqsoff, error) {
	avail, err := fs.Read("available_tracers")
	if err != nil {
		return nil, err
	}
	if !strings.Contains(" "+strings.TrimSpace(avail)+" ", " irqsoff ") {
		return nil, fmt.Errorf("tracefs: the kernel has no irqsoff tracer (available: %s); build it with CONFIG_IRQSOFF_TRACER=y", strings.TrimSpace(avail))
	}
	steps := [][2]string{
		{"tracing_on", "0"},
		{"current_tracer", "irqsoff"},
		{"tracing_max_latency", "0"},
		{"tracing_on", "1"},
	}
	for _, s := range steps {
		if err := fs.Write(s[0], s[1]); err != nil {
			return nil, err
		}
	}
	return &Irqsoff{fs: fs}, nil
}

// Sample closes the current window: it records the window's worst section
// and resets the maximum so the next window starts from zero.
func (t *Irqsoff) Sample() error {
	raw, err := t.fs.ReadValue("tracing_max_latency")
	if err != nil {
		return err
	}
	us, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil {
		return fmt.Errorf("tracefs: tracing_max_latency %q: %w", raw, err)
	}
	sec := agentproto.Section{LatencyUS: us, CPU: -1}
	text := ""
	if us > 0 {
		text, err = t.fs.Read("trace")
		if err != nil {
			return err
		}
		if parsed, perr := ParseLatencyTrace(text); perr == nil {
			sec = parsed
			// The file is read after the value: a newer, larger maximum
			// may have replaced it in between; the file is the truth.
			if sec.LatencyUS < us {
				sec.LatencyUS = us
			}
		}
	}
	if err := t.fs.Write("tracing_max_latency", "0"); err != nil {
		return err
	}
	t.windows = append(t.windows, sec)
	if us > 0 && (t.worst == nil || sec.LatencyUS > t.worst.LatencyUS) {
		w := sec
		t.worst = &w
		t.trace = text
	}
	return nil
}

// Stop turns the tracer off and returns what it found.
func (t *Irqsoff) Stop(window time.Duration) (*agentproto.Irqsoff, error) {
	err := errors.Join(t.fs.Write("tracing_on", "0"), t.fs.Write("current_tracer", "nop"))
	return &agentproto.Irqsoff{
		WindowSec:  window.Seconds(),
		Worst:      t.worst,
		Windows:    t.windows,
		WorstTrace: t.trace,
	}, err
}

// The parsers' patterns are compiled on first use, not when the package
// initialises: every boot runs kagent's initialisation under TCG before the
// host can connect, and compiling them is a noticeable share of it.
var (
	latencyRe = lazyRegexp(`^#\s*latency:\s*(\d+)\s*us.*CPU#(\d+)`)
	taskRe    = lazyRegexp(`^#\s*\|\s*task:\s*(\S+)`)
	startRe   = lazyRegexp(`^#\s*=>\s*started at:\s*(\S+)`)
	endRe     = lazyRegexp(`^#\s*=>\s*ended at:\s*(\S+)`)
	frameRe   = lazyRegexp(`^\s*=>\s*(\S+)`)
)

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// ParseLatencyTrace reads the irqsoff tracer's `trace` file: the header's
// latency, CPU, task, start and end points, and the stack trace that the
// tracer records when a new maximum is hit.
func ParseLatencyTrace(text string) (agentproto.Section, error) {
	sec := agentproto.Section{CPU: -1}
	found := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m := latencyRe().FindStringSubmatch(line); m != nil {
			sec.LatencyUS, _ = strconv.ParseInt(m[1], 10, 64)
			sec.CPU, _ = strconv.Atoi(m[2])
			found = true
			continue
		}
		if m := taskRe().FindStringSubmatch(line); m != nil {
			sec.Task = m[1]
			continue
		}
		if m := startRe().FindStringSubmatch(line); m != nil {
			sec.StartedAt = cleanSym(m[1])
			continue
		}
		if m := endRe().FindStringSubmatch(line); m != nil {
			sec.EndedAt = cleanSym(m[1])
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		if m := frameRe().FindStringSubmatch(line); m != nil {
			sec.Stack = append(sec.Stack, cleanSym(m[1]))
		}
	}
	if !found {
		return sec, errors.New("irqsoff trace: no '# latency:' header")
	}
	sec.Holder = Holder(sec)
	return sec, nil
}

// cleanSym drops the "+0x12/0x40" offset some kernels print.
func cleanSym(s string) string {
	if i := strings.IndexByte(s, '+'); i > 0 {
		return s[:i]
	}
	return s
}

// generic reports frames that say nothing about who held irqs off: lock
// primitives, irq-flag helpers, the tracer itself and syscall entry.
func generic(sym string) bool {
	for _, p := range []string{"_raw_", "__raw_", "raw_spin", "spin_", "trace_", "tracer_", "stop_critical", "start_critical", "__local_bh", "local_irq", "do_syscall", "entry_SYSCALL", "asm_", "irq_"} {
		if strings.HasPrefix(sym, p) {
			return true
		}
	}
	return sym == ""
}

// Holder names the code responsible for a section: the end point when it
// is specific (the seed's "ended at: cgroup_rstat_flush"), else the first
// specific stack frame, else the start point.
func Holder(s agentproto.Section) string {
	if !generic(s.EndedAt) {
		return s.EndedAt
	}
	for _, f := range s.Stack {
		if !generic(f) {
			return f
		}
	}
	if s.StartedAt != "" {
		return s.StartedAt
	}
	return s.EndedAt
}

// HeldBy reports whether any of the section's points or frames mention
// substr (a workload's irqs-off holder, metrics.Holder.Substr).
func HeldBy(s agentproto.Section, substr string) bool {
	if strings.Contains(s.StartedAt, substr) || strings.Contains(s.EndedAt, substr) {
		return true
	}
	for _, f := range s.Stack {
		if strings.Contains(f, substr) {
			return true
		}
	}
	return false
}

// LockHolds measures how long a lock is held from a pair of tracepoints
// recorded in their own tracefs instance (so the irqsoff tracer's buffer
// swaps cannot eat them). Acquire and release of an irq-disabling spinlock
// happen on one CPU, so events pair by CPU. It reads the binary pages of
// each CPU's trace_pipe_raw, not the text trace: their timestamps are in
// nanoseconds, while holds of tens of microseconds counted in whole
// microseconds move a percentile in coarse steps.
type LockHolds struct {
	inst        FS
	lock        string
	acquire     string
	release     string
	acquireID   uint16
	releaseID   uint16
	pipes       []cpuPipe
	page        []byte
	open        map[int]uint64
	holds       []Hold
	lost        int64
	maxRecorded int
	// monoClock: the instance's trace clock is CLOCK_MONOTONIC, so a
	// time taken in user space (now) can bound the events' timestamps.
	monoClock bool
	now       func() uint64
	// keepBefore, when not 0, is the trace-clock time from which a hold
	// that starts is dropped (counted in late): see RecordFor.
	keepBefore uint64
	late       int64
	// unbounded: RecordFor was asked to bound the window and could not.
	unbounded bool
}

// cpuPipe is one CPU's trace_pipe_raw, opened non-blocking: a blocked read
// cannot be interrupted, and the Go poller is no help on tracefs.
type cpuPipe struct {
	cpu int
	fd  int
}

// Hold is one lock hold: how long, and the task that held the lock.
type Hold struct {
	US  float64
	PID int32
}

// NewLockHolds creates instance name under fs with the two events (given
// as "system/event") enabled and recording off: nothing is recorded until
// Record(true), so that the holds are those of the phase the caller
// measures, not of its set-up and teardown.
func NewLockHolds(fs FS, instance, lock, acquireEvent, releaseEvent string) (*LockHolds, error) {
	dir := fs.path(filepath.Join("instances", instance))
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("tracefs: create instance %s: %w", instance, err)
	}
	inst := FS{Root: dir}
	header, err := inst.Read("events/header_page")
	if err != nil {
		return nil, err
	}
	if err := ringbuf.CheckHeaderPage(header); err != nil {
		return nil, err
	}
	ids := make([]uint16, 2)
	for i, ev := range []string{acquireEvent, releaseEvent} {
		text, err := inst.Read(filepath.Join("events", ev, "id"))
		if err != nil {
			return nil, fmt.Errorf("tracefs: the kernel has no tracepoint %s: %w", ev, err)
		}
		id, err := strconv.ParseUint(strings.TrimSpace(text), 10, 16)
		if err != nil {
			return nil, fmt.Errorf("tracefs: %s/id: %w", ev, err)
		}
		ids[i] = uint16(id)
	}
	// CLOCK_MONOTONIC ("mono", nanoseconds), so that RecordFor can bound
	// the recording by a time read in user space; "local" (also ns, the
	// new instance's default) where the kernel has no mono trace clock,
	// and then the recording is not bounded.
	monoClock := inst.Write("trace_clock", "mono") == nil
	if !monoClock {
		if err := inst.Write("trace_clock", "local"); err != nil {
			return nil, err
		}
	}
	if err := inst.Write("buffer_size_kb", "8192"); err != nil {
		return nil, err
	}
	pageSize := 4096
	if kb, err := inst.ReadValue("buffer_subbuf_size_kb"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(kb)); err == nil && n*1024 > pageSize {
			pageSize = n * 1024
		}
	}
	cpuDirs, err := filepath.Glob(inst.path("per_cpu/cpu*"))
	if err != nil || len(cpuDirs) == 0 {
		return nil, fmt.Errorf("tracefs: instance %s has no per_cpu/cpu* directories", instance)
	}
	l := &LockHolds{
		inst: inst, lock: lock,
		acquire: filepath.Base(acquireEvent), release: filepath.Base(releaseEvent),
		acquireID: ids[0], releaseID: ids[1],
		page: make([]byte, pageSize), open: map[int]uint64{}, maxRecorded: 20_000_000,
		monoClock: monoClock, now: monotonicNow,
	}
	for _, d := range cpuDirs {
		cpu, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu"))
		if err != nil {
			continue
		}
		fd, err := syscall.Open(filepath.Join(d, "trace_pipe_raw"), syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			l.closePipes()
			return nil, fmt.Errorf("tracefs: open %s/per_cpu/cpu%d/trace_pipe_raw: %w", instance, cpu, err)
		}
		l.pipes = append(l.pipes, cpuPipe{cpu: cpu, fd: fd})
	}
	// A new instance records from the start; off first, then the events.
	if err := inst.Write("tracing_on", "0"); err != nil {
		l.closePipes()
		return nil, err
	}
	for _, ev := range []string{acquireEvent, releaseEvent} {
		if err := inst.Write(filepath.Join("events", ev, "enable"), "1"); err != nil {
			l.closePipes()
			return nil, err
		}
	}
	return l, nil
}

// Record turns recording on or off; what was recorded stays in the pipes
// for Drain and Stop. A hold that straddles the switch is not paired: its
// acquire or its release is missing.
func (l *LockHolds) Record(on bool) error {
	v := "0"
	if on {
		v = "1"
	}
	return l.inst.Write("tracing_on", v)
}

// RecordFor turns recording on and keeps only the holds that start within
// d from now: a phase whose readers stop at a deadline d away records a
// little longer (until they have stopped and Record(false) runs), and
// that slack must not let in one more of a periodic holder's holds. The
// memcg flusher holds the rstat lock every 2 s; a window of at most 4 s
// holds at most two of its holds whatever its phase, a little more may
// hold three, and a third can decide the p99 of all holds
// (docs/design-notes.md, guest/workload/rstat).
// Without the mono trace clock (see NewLockHolds), or when the clock
// cannot be read, the holds are not bounded, and Stop's Source says so.
func (l *LockHolds) RecordFor(d time.Duration) error {
	if d > 0 {
		if now := l.now(); l.monoClock && now > 0 {
			l.keepBefore = now + uint64(d)
		} else {
			l.unbounded = true
		}
	}
	return l.Record(true)
}

// monotonicNow is CLOCK_MONOTONIC in nanoseconds, the clock of the "mono"
// trace clock.
func monotonicNow() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0 // RecordFor then does not bound the window
	}
	return uint64(ts.Nano())
}

func (l *LockHolds) closePipes() {
	for _, p := range l.pipes {
		syscall.Close(p.fd)
	}
}

// Drain reads whatever the CPUs' pipes hold now; call it often during the
// run so the ring buffer does not overflow.
func (l *LockHolds) Drain() error {
	var errs []error
	for _, p := range l.pipes {
		errs = append(errs, l.drainCPU(p))
	}
	return errors.Join(errs...)
}

func (l *LockHolds) drainCPU(p cpuPipe) error {
	for {
		n, err := syscall.Read(p.fd, l.page)
		if n > 0 {
			if err := l.Feed(p.cpu, l.page[:n]); err != nil {
				return fmt.Errorf("tracefs: cpu%d trace_pipe_raw: %w", p.cpu, err)
			}
		}
		if err == syscall.EAGAIN || err == syscall.EINTR {
			return nil
		}
		if err != nil {
			return fmt.Errorf("tracefs: read cpu%d trace_pipe_raw: %w", p.cpu, err)
		}
		if n == 0 {
			return nil
		}
	}
}

// Feed pairs the events of one page read from cpu's trace_pipe_raw; it is
// exported for tests and for re-analysing recorded pages.
func (l *LockHolds) Feed(cpu int, page []byte) error {
	p, err := ringbuf.Decode(page)
	if err != nil {
		return err
	}
	if p.Missed {
		// Pairs that straddle the gap are unknowable: forget them.
		delete(l.open, cpu)
		// Saturating: a corrupt count must not wrap the total negative.
		l.lost += min(max(p.MissedCount, 1), math.MaxInt64-l.lost)
	}
	for _, ev := range p.Events {
		switch ev.Type {
		case l.acquireID:
			l.open[cpu] = ev.TS
		case l.releaseID:
			start, ok := l.open[cpu]
			if !ok {
				continue
			}
			delete(l.open, cpu)
			if l.keepBefore != 0 && start >= l.keepBefore {
				l.late++
				continue
			}
			if len(l.holds) < l.maxRecorded && ev.TS >= start {
				l.holds = append(l.holds, Hold{US: float64(ev.TS-start) / 1e3, PID: ev.PID})
			}
		}
	}
	return nil
}

// Stop disables the events, drains the pipes and summarises the holds.
func (l *LockHolds) Stop() (*agentproto.LockHolds, error) {
	werr := l.inst.Write("tracing_on", "0")
	derr := l.Drain()
	l.closePipes()
	res := Summarise(l.lock, HoldTimes(l.holds, nil))
	res.Lost = l.lost
	res.Source = fmt.Sprintf("tracepoints %s/%s (trace_pipe_raw, ns)", l.acquire, l.release)
	switch {
	case l.keepBefore != 0:
		res.Source += fmt.Sprintf("; holds starting in the recorded window only (%d later ones dropped)", l.late)
	case l.unbounded:
		res.Source += "; window not bounded (no mono trace clock, or CLOCK_MONOTONIC unreadable)"
	}
	return res, errors.Join(derr, werr)
}

// Holds returns the holds measured so far.
func (l *LockHolds) Holds() []Hold { return l.holds }

// HoldTimes returns the durations (us) of the holds whose task keep
// accepts; a nil keep accepts all.
func HoldTimes(holds []Hold, keep func(pid int32) bool) []float64 {
	out := make([]float64, 0, len(holds))
	for _, h := range holds {
		if keep == nil || keep(h.PID) {
			out = append(out, h.US)
		}
	}
	return out
}

// NewLockHoldsParser returns a LockHolds that only pairs pages fed to it
// (no tracefs), for the given event ids.
func NewLockHoldsParser(acquireID, releaseID uint16) *LockHolds {
	return &LockHolds{acquireID: acquireID, releaseID: releaseID, open: map[int]uint64{}, maxRecorded: 20_000_000}
}

// Package contention measures how long tasks wait for named kernel locks,
// from the lock:contention_begin and lock:contention_end tracepoints
// (kernels since 5.19): per lock, how many waits and their p50, p99 and
// max, as `perf lock contention` reports them, so that a comparison can
// judge them like any other metric.
//
// A static lock is named by its symbol and resolved to its address through
// /proc/kallsyms in the guest (Resolve). A tracefs instance of its own
// records only the named locks' events (an event filter on lock_addr) with
// real addresses (options/hash-ptr off), and its text trace is paired per
// task and lock (Parse): a wait starts at a task's first contention_begin
// for the lock and ends at its contention_end. A mutex's slow path fires
// contention_begin again when the waiter stops spinning and sleeps, and a
// waiter may contend another lock (the mutex's wait_lock) meanwhile; the
// first begin is the wait's start, as perf counts it.
//
// A kernel without the tracepoints, or without the symbol, cannot say:
// every metric of the lock is then reported unavailable with the reason
// (Unavailable), never a silent 0.
package contention

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/internal/stats"
)

// Events are the two tracepoints every contention metric needs.
var Events = []probe.Need{
	{Kind: probe.Tracepoint, Name: "lock/contention_begin"},
	{Kind: probe.Tracepoint, Name: "lock/contention_end"},
}

// symbolName is what a lock's name may be: a C identifier, possibly with
// the compiler's suffix of a static local (".123", ".llvm.456").
var symbolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$`)

// CheckName refuses a lock name that cannot be a kernel symbol, before
// it becomes part of metric names and of a tracefs filter.
func CheckName(lock string) error {
	if len(lock) > 128 || !symbolName.MatchString(lock) {
		return fmt.Errorf("lock %q: want a kernel symbol name (letters, digits, _; at most 128)", lock)
	}
	return nil
}

// Specs are the metrics of lock's contention, in report order; every one
// needs the two tracepoints.
func Specs(lock string) []metrics.Spec {
	return specs(metricName(lock), lock)
}

// UnderSpecs are the metrics of the contention of every lock whose wait
// began with fn among the waiter's callers.
func UnderSpecs(fn string) []metrics.Spec {
	return specs(underName(fn), "any lock under "+fn+"()")
}

func specs(stem, what string) []metrics.Spec {
	return []metrics.Spec{
		metrics.Define(stem+"_contentions", "waits", metrics.Info, "waits for "+what+" (lock:contention_begin to contention_end)", Events...),
		metrics.Define(stem+"_wait_p50_us", "us", metrics.Lower, "median wait for "+what, Events...),
		metrics.Define(stem+"_wait_p99_us", "us", metrics.Lower, "99th percentile wait for "+what, Events...),
		metrics.Define(stem+"_wait_max_us", "us", metrics.Lower, "longest wait for "+what, Events...),
	}
}

// underName is the stem of the metric names of the locks contended under
// fn.
func underName(fn string) string {
	return "lock_under_" + strings.ToLower(strings.ReplaceAll(fn, ".", "_"))
}

// metricName is the stem of lock's metric names: lower case, dots (a
// static local's suffix) as underscores.
func metricName(lock string) string {
	return "lock_" + strings.ToLower(strings.ReplaceAll(lock, ".", "_"))
}

// Metrics are lock's figures from its waits (us, any order): the count,
// and the p50, p99 and max when there was at least one wait (a lock never
// contended has a count of 0 and no wait figures, not waits of 0).
func Metrics(lock string, waits []float64) []agentproto.Metric {
	return figures(Specs(lock), waits)
}

func figures(s []metrics.Spec, waits []float64) []agentproto.Metric {
	out := []agentproto.Metric{s[0].Of(float64(len(waits)))}
	if len(waits) == 0 {
		return out
	}
	sorted := slices.Sorted(slices.Values(waits))
	return append(out,
		s[1].Of(stats.NearestRank(sorted, 0.5)),
		s[2].Of(stats.NearestRank(sorted, 0.99)),
		s[3].Of(sorted[len(sorted)-1]))
}

// Unavailable reports every metric of lock as unavailable for reason.
func Unavailable(lock, reason string) []agentproto.Unavailable {
	return unavailable(Specs(lock), reason)
}

func unavailable(specs []metrics.Spec, reason string) []agentproto.Unavailable {
	var out []agentproto.Unavailable
	for _, s := range specs {
		out = append(out, agentproto.Unavailable{Metric: s.Name, Reason: reason})
	}
	return out
}

// maxKallsyms bounds what is read of /proc/kallsyms.
const maxKallsyms = 64 << 20

// Resolve finds symbol's address in a /proc/kallsyms listing. A symbol
// that is not there, that names several objects (two static locks of one
// name in different files) or whose address kallsyms hides (zeros:
// kptr_restrict, or not root) is an error saying which.
func Resolve(kallsyms io.Reader, symbol string) (uint64, error) {
	if err := CheckName(symbol); err != nil {
		return 0, err
	}
	var addrs []uint64
	sc := bufio.NewScanner(io.LimitReader(kallsyms, maxKallsyms))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || fields[2] != symbol {
			continue
		}
		a, err := strconv.ParseUint(fields[0], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("kallsyms: %s: address %q: %w", symbol, fields[0], err)
		}
		addrs = append(addrs, a)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("kallsyms: %w", err)
	}
	switch {
	case len(addrs) == 0:
		// Without CONFIG_KALLSYMS_ALL kallsyms lists functions only, and
		// a static lock is data.
		return 0, fmt.Errorf("no symbol %s in /proc/kallsyms (a lock is data: kallsyms lists it only with CONFIG_KALLSYMS_ALL)", symbol)
	case len(addrs) > 1:
		return 0, fmt.Errorf("symbol %s names %d objects in /proc/kallsyms (static locks of one name in several files): not one lock", symbol, len(addrs))
	case addrs[0] == 0:
		return 0, fmt.Errorf("/proc/kallsyms hides %s's address (kptr_restrict, or not root)", symbol)
	}
	return addrs[0], nil
}

// Filter is the tracefs event filter that keeps only addrs' events.
func Filter(addrs []uint64) string {
	var parts []string
	for _, a := range addrs {
		parts = append(parts, fmt.Sprintf("lock_addr == 0x%x", a))
	}
	return strings.Join(parts, " || ")
}

// traceLine is one contention event of the text trace: task-PID, an
// optional TGID column, [CPU], an optional irq-info field, seconds.fraction,
// the event, the lock's address, and (flags=...) or (ret=...).
var traceLine = regexp.MustCompile(`^\s*.*-(\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(\d+)\]\s+(?:\S+\s+)?(\d+)\.(\d+):\s+(contention_begin|contention_end):\s+(?:0x)?([0-9a-f]+)\s+\((?:flags|ret)=[^)]*\)\s*$`)

// stackLine is the header of a stacktrace trigger's entry: task-PID and
// the same columns as an event, then "<stack trace>"; its frames follow,
// one " => function+off/size" a line.
var stackLine = regexp.MustCompile(`^\s*.*-(\d+)\s+(?:\(\s*[\d-]+\)\s+)?\[(\d+)\]\s+(?:\S+\s+)?\d+\.\d+:\s+<stack trace>\s*$`)

// entriesLine is the trace header's count of events kept and written.
var entriesLine = regexp.MustCompile(`entries-in-buffer/entries-written:\s*(\d+)/(\d+)`)

// Waits are the paired waits of a trace, per lock address.
type Waits struct {
	// US are the waits of each lock address, in microseconds, in the
	// order they ended.
	US map[uint64][]float64
	// Unfinished counts waits begun and not ended when the trace stopped;
	// Unmatched, ends whose begin the trace does not have (recording
	// began mid-wait). Neither is a wait.
	Unfinished, Unmatched int
	// Lost is true when the trace says events were lost (a ring buffer
	// overrun): the figures are of what was kept.
	Lost bool
	// Under are the waits (us) of any lock whose first contention_begin's
	// stack (a stacktrace trigger's entry right after it) has each
	// function ParseUnder was asked about.
	Under map[string][]float64
}

type waitKey struct {
	pid  int
	addr uint64
}

// maxLine bounds one line of the trace.
const maxLine = 64 << 10

// Parse pairs the contention events of a text trace (tracefs `trace`
// of an instance that records the two events). Lines that are not
// contention events (comments, other events) are skipped; a line that
// names a contention event and does not parse is an error naming it.
func Parse(r io.Reader) (*Waits, error) { return ParseUnder(r, nil) }

// ParseUnder is Parse that also attributes each wait to the functions of
// under found in the stack of its first contention_begin (Waits.Under).
func ParseUnder(r io.Reader, under []string) (*Waits, error) {
	w := &Waits{US: map[uint64][]float64{}, Under: map[string][]float64{}}
	open := map[waitKey]uint64{}
	stacks := map[waitKey][]string{}
	fresh := map[int]waitKey{} // a task's wait whose stack is still to come
	var stackOf *waitKey       // the wait the frames being read belong to
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			// "# entries-in-buffer/entries-written: 4/6": the ring
			// buffer overwrote the oldest events.
			if m := entriesLine.FindStringSubmatch(line); m != nil && m[1] != m[2] {
				w.Lost = true
			}
			continue
		}
		if strings.Contains(line, "LOST") && strings.Contains(line, "EVENTS") {
			w.Lost = true
			continue
		}
		if frame, ok := strings.CutPrefix(line, " => "); ok {
			if stackOf != nil {
				name, _, _ := strings.Cut(strings.TrimSpace(frame), "+")
				stacks[*stackOf] = append(stacks[*stackOf], name)
			}
			continue
		}
		stackOf = nil
		if len(under) > 0 && strings.Contains(line, "<stack trace>") {
			if m := stackLine.FindStringSubmatch(line); m != nil {
				pid, _ := strconv.Atoi(m[1])
				if k, ok := fresh[pid]; ok {
					delete(fresh, pid)
					stackOf = &k
				}
			}
			continue
		}
		if !strings.Contains(line, "contention_") {
			continue
		}
		m := traceLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("trace line %d: not a contention event: %q", n, line)
		}
		pid, _ := strconv.Atoi(m[1])
		ts, err := nanoseconds(m[3], m[4])
		if err != nil {
			return nil, fmt.Errorf("trace line %d: %w", n, err)
		}
		addr, err := strconv.ParseUint(m[6], 16, 64)
		if err != nil {
			return nil, fmt.Errorf("trace line %d: address %q: %w", n, m[6], err)
		}
		k := waitKey{pid, addr}
		if m[5] == "contention_begin" {
			if _, waiting := open[k]; !waiting {
				open[k] = ts
				fresh[pid] = k
			}
			continue
		}
		start, ok := open[k]
		if !ok {
			w.Unmatched++
			continue
		}
		delete(open, k)
		if ts < start {
			return nil, fmt.Errorf("trace line %d: contention_end at %d ns before its begin at %d ns", n, ts, start)
		}
		us := float64(ts-start) / 1e3
		w.US[addr] = append(w.US[addr], us)
		for _, fn := range under {
			if slices.Contains(stacks[k], fn) {
				w.Under[fn] = append(w.Under[fn], us)
			}
		}
		delete(stacks, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	w.Unfinished = len(open)
	return w, nil
}

// nanoseconds turns a trace timestamp's seconds and fraction (usually
// microseconds: six digits) into nanoseconds.
func nanoseconds(secs, frac string) (uint64, error) {
	s, err := strconv.ParseUint(secs, 10, 64)
	if err != nil || len(frac) > 9 || s > 1<<33 {
		return 0, errors.New("timestamp " + secs + "." + frac + " out of range")
	}
	f, err := strconv.ParseUint(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
	if err != nil {
		return 0, errors.New("timestamp " + secs + "." + frac + " out of range")
	}
	return s*1_000_000_000 + f, nil
}

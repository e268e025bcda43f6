package contention

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/probe"
)

const (
	rstatLock   = 0xffffffff82e0c0a0
	cgroupMutex = 0xffffffff82f11240
)

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// A text trace of two locks in 6.12's format (testdata/trace-6.12.txt,
// written by hand after the TP_printk formats of 6.12's
// include/trace/events/lock.h with hash-ptr off; no guest was run for it),
// whose lines reproduce mutex.c's sequence of events: a spinlock's
// waits are begin to end per task; a mutex waiter's repeated begins (spin,
// then sleep, then spin again) are one wait from its first begin; an end
// whose begin the trace lacks and begins never ended are counted apart,
// never as waits.
func TestParseRecordedTrace(t *testing.T) {
	w, err := Parse(open(t, "trace-6.12.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.US[rstatLock]; !slices.Equal(got, []float64{9, 4, 101}) {
		t.Errorf("cgroup_rstat_lock waits %v, want [9 4 101] us", got)
	}
	if got := w.US[cgroupMutex]; !slices.Equal(got, []float64{240}) {
		t.Errorf("cgroup_mutex waits %v, want [240] us (first begin to end)", got)
	}
	if w.Unfinished != 2 || w.Unmatched != 1 || w.Lost {
		t.Errorf("unfinished %d, unmatched %d, lost %v; want 2, 1, false", w.Unfinished, w.Unmatched, w.Lost)
	}
}

// A header saying the buffer overwrote events, and a contention line
// that does not parse, are reported; other events are skipped.
func TestParseLostAndMalformed(t *testing.T) {
	w, err := Parse(strings.NewReader("# entries-in-buffer/entries-written: 10/12   #P:2\n  sh-1 [000] .....  1.000001: sched_switch: x\n"))
	if err != nil || !w.Lost {
		t.Errorf("overwritten buffer: %+v, %v; want lost", w, err)
	}
	_, err = Parse(strings.NewReader("# x\n  sh-1 [000] .....  1.000001: contention_begin: zz (flags=SPIN)\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("malformed contention line: %v, want an error naming line 2", err)
	}
	_, err = Parse(strings.NewReader("  sh-1 [000] .....  2.000000: contention_begin: ff (flags=SPIN)\n  sh-1 [000] .....  1.000000: contention_end: ff (ret=0)\n"))
	if err == nil || !strings.Contains(err.Error(), "before its begin") {
		t.Errorf("end before begin: %v", err)
	}
}

// Without the irq-info column, and with the TGID column, lines parse.
func TestParseColumnVariants(t *testing.T) {
	text := "  a b-c-7 [001] 3.000010: contention_begin: ffff0001 (flags=READ)\n" +
		"  a b-c-7 (    5) [001] d..1. 3.000030: contention_end: ffff0001 (ret=0)\n"
	w, err := Parse(strings.NewReader(text))
	if err != nil || !slices.Equal(w.US[0xffff0001], []float64{20}) {
		t.Fatalf("%+v, %v", w, err)
	}
}

func TestResolve(t *testing.T) {
	addr, err := Resolve(open(t, "kallsyms"), "cgroup_rstat_lock")
	if err != nil || addr != rstatLock {
		t.Errorf("cgroup_rstat_lock: %#x, %v", addr, err)
	}
	for sym, want := range map[string]string{
		"no_such_lock":     "no symbol no_such_lock",
		"event_mutex":      "names 2 objects",
		"x; echo 1 > oops": "want a kernel symbol name",
	} {
		if _, err := Resolve(open(t, "kallsyms"), sym); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", sym, err, want)
		}
	}
	if _, err := Resolve(strings.NewReader("0000000000000000 b cgroup_rstat_lock\n"), "cgroup_rstat_lock"); err == nil || !strings.Contains(err.Error(), "hides") {
		t.Errorf("hidden address: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	got := map[string]float64{}
	var names []string
	for _, m := range Metrics("cgroup_rstat_lock", []float64{9, 4, 101}) {
		got[m.Name] = m.Value
		names = append(names, m.Name)
	}
	want := map[string]float64{"lock_cgroup_rstat_lock_contentions": 3, "lock_cgroup_rstat_lock_wait_p50_us": 9,
		"lock_cgroup_rstat_lock_wait_p99_us": 101, "lock_cgroup_rstat_lock_wait_max_us": 101}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(names) != 4 || names[0] != "lock_cgroup_rstat_lock_contentions" {
		t.Errorf("order %v", names)
	}
	if m := Metrics("x.12", nil); len(m) != 1 || m[0].Name != "lock_x_12_contentions" || m[0].Value != 0 {
		t.Errorf("never contended: %+v, want a count of 0 and no wait figures", m)
	}
	for _, s := range Specs("cgroup_mutex") {
		if len(s.Needs) != 2 {
			t.Errorf("%s needs %v", s.Name, s.Needs)
		}
	}
}

// fakeKernel lays out a tracefs (with the contention events when events)
// and a /proc with testdata/kallsyms.
func fakeKernel(t *testing.T, events bool) (ftrace.FS, *probe.Kernel) {
	root := t.TempDir()
	tracefs, proc := filepath.Join(root, "tracing"), filepath.Join(root, "proc")
	os.MkdirAll(filepath.Join(tracefs, "instances"), 0o755)
	if events {
		for _, ev := range []string{"contention_begin", "contention_end"} {
			os.MkdirAll(filepath.Join(tracefs, "events/lock", ev), 0o755)
			os.WriteFile(filepath.Join(tracefs, "events/lock", ev, "id"), []byte("300\n"), 0o644)
			// What the kernel lays out in a new instance.
			os.MkdirAll(filepath.Join(tracefs, "instances", instance, "events/lock", ev), 0o755)
		}
		os.MkdirAll(filepath.Join(tracefs, "instances", instance, "options"), 0o755)
	}
	os.MkdirAll(proc, 0o755)
	data, err := os.ReadFile(filepath.Join("testdata", "kallsyms"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proc, "kallsyms"), data, 0o644)
	return ftrace.FS{Root: tracefs}, &probe.Kernel{Tracefs: tracefs, Proc: proc}
}

// A kernel without the tracepoints (before 5.19, or built without
// them): every metric of every named lock is unavailable, saying which
// tracepoints are missing; nothing is set up.
func TestSetupWithoutTracepoints(t *testing.T) {
	fs, kern := fakeKernel(t, false)
	r, unavailable, err := Setup(fs, kern, []string{"cgroup_rstat_lock", "cgroup_mutex"}, nil)
	if err != nil || r != nil {
		t.Fatalf("recorder %v, %v; want none", r, err)
	}
	if len(unavailable) != 8 {
		t.Fatalf("unavailable %+v, want the 4 metrics of each lock", unavailable)
	}
	for _, u := range unavailable {
		if u.Reason != "unavailable on this kernel: no tracepoint lock:contention_begin, no tracepoint lock:contention_end" {
			t.Errorf("%s: %q", u.Metric, u.Reason)
		}
	}
	if _, err := os.Stat(filepath.Join(fs.Root, "instances", instance)); err == nil {
		t.Error("an instance was created on a kernel that cannot record")
	}
}

// With the tracepoints: a lock kallsyms lacks is unavailable naming it,
// the others are recorded in an instance filtered to their addresses with
// real pointers, and their metrics come from its trace, in the order the
// locks were named.
func TestSetupAndRecord(t *testing.T) {
	fs, kern := fakeKernel(t, true)
	r, unavailable, err := Setup(fs, kern, []string{"cgroup_rstat_lock", "no_such_lock", "cgroup_mutex"}, nil)
	if err != nil || r == nil {
		t.Fatalf("setup: %v", err)
	}
	if len(unavailable) != 4 || unavailable[0].Metric != "lock_no_such_lock_contentions" || !strings.Contains(unavailable[0].Reason, "no symbol no_such_lock in /proc/kallsyms") {
		t.Errorf("unavailable %+v", unavailable)
	}
	inst := ftrace.FS{Root: filepath.Join(fs.Root, "instances", instance)}
	for file, want := range map[string]string{
		"options/hash-ptr":                    "0",
		"events/lock/contention_begin/filter": "lock_addr == 0xffffffff82e0c0a0 || lock_addr == 0xffffffff82f11240",
		"events/lock/contention_end/filter":   "lock_addr == 0xffffffff82e0c0a0 || lock_addr == 0xffffffff82f11240",
		"events/lock/contention_end/enable":   "1",
		"tracing_on":                          "0",
	} {
		if got, _ := inst.Read(file); got != want {
			t.Errorf("%s = %q, want %q", file, got, want)
		}
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	trace, _ := os.ReadFile(filepath.Join("testdata", "trace-6.12.txt"))
	os.WriteFile(filepath.Join(inst.Root, "trace"), trace, 0o644)
	ms, warnings, err := r.Stop()
	if err != nil || len(warnings) != 0 {
		t.Fatalf("stop: %v %v", warnings, err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Name+"="+strconv.FormatFloat(m.Value, 'g', -1, 64))
	}
	want := []string{"lock_cgroup_rstat_lock_contentions=3", "lock_cgroup_rstat_lock_wait_p50_us=9", "lock_cgroup_rstat_lock_wait_p99_us=101", "lock_cgroup_rstat_lock_wait_max_us=101",
		"lock_cgroup_mutex_contentions=1", "lock_cgroup_mutex_wait_p50_us=240", "lock_cgroup_mutex_wait_p99_us=240", "lock_cgroup_mutex_wait_max_us=240"}
	if !slices.Equal(got, want) {
		t.Errorf("metrics\n%v\nwant\n%v", got, want)
	}
}

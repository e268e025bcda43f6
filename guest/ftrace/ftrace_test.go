package ftrace

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// seedTrace is the irqsoff trace quoted in the rstat seed (v6.14-rc6).
const seedTrace = `# tracer: irqsoff
#
# irqsoff latency trace v1.1.5 on 6.14.0-rc6
# --------------------------------------------------------------------
# latency: 45341 us, #4/4, CPU#52 | (M:server VP:0, KP:0, SP:0 HP:0 #P:400)
#    -----------------
#    | task: stat_reader-96532 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#  => started at: _raw_spin_lock_irq
#  => ended at:   cgroup_rstat_flush
#
#
#                    _------=> CPU#
#  cmd     pid     |||||| time  |   caller
#     \   /        ||||||  \    |    /
  stat_rea-96532    52d....    0us*: _raw_spin_lock_irq
  stat_rea-96532    52d.... 45342us : cgroup_rstat_flush
  stat_rea-96532    52d.... 45342us : tracer_hardirqs_on <-cgroup_rstat_flush
  stat_rea-96532    52d.... 45343us : <stack trace>
   => memcg1_stat_format
   => memory_stat_format
   => memory_stat_show
   => seq_read_iter
   => vfs_read
   => ksys_read
   => do_syscall_64
   => entry_SYSCALL_64_after_hwframe
`

func TestParseLatencyTraceSeed(t *testing.T) {
	s, err := ParseLatencyTrace(seedTrace)
	if err != nil {
		t.Fatal(err)
	}
	if s.LatencyUS != 45341 || s.CPU != 52 || s.Task != "stat_reader-96532" {
		t.Fatalf("header: %+v", s)
	}
	if s.StartedAt != "_raw_spin_lock_irq" || s.EndedAt != "cgroup_rstat_flush" || s.Holder != "cgroup_rstat_flush" {
		t.Fatalf("points: %+v", s)
	}
	if len(s.Stack) != 8 || s.Stack[0] != "memcg1_stat_format" {
		t.Fatalf("stack: %v", s.Stack)
	}
	if !HeldBy(s, "rstat") {
		t.Fatal("rstat not recognised as the holder")
	}
}

func TestHolderSkipsGenericFrames(t *testing.T) {
	s, err := ParseLatencyTrace("# latency: 10 us, #1/1, CPU#0 | (M:server)\n#  => started at: _raw_spin_lock_irqsave\n#  => ended at:   _raw_spin_unlock_irqrestore\n => do_send_specific+0x1c/0x80\n => __x64_sys_tgkill\n")
	if err != nil {
		t.Fatal(err)
	}
	if s.Holder != "do_send_specific" {
		t.Fatalf("holder %q", s.Holder)
	}
	if _, err := ParseLatencyTrace("# tracer: nop\n"); err == nil {
		t.Fatal("a trace without latency header parsed")
	}
}

// rawPage is a trace_pipe_raw page of events given as (time delta in ns,
// event id, pid) triples; lost sets the kernel's lost-events flag.
func rawPage(start uint64, lost bool, events ...[3]uint64) []byte {
	le := binary.LittleEndian
	var data []byte
	for _, e := range events {
		data = le.AppendUint32(data, 2|uint32(e[0])<<5) // type_len 2: 8 bytes
		data = le.AppendUint16(data, uint16(e[1]))
		data = append(data, 0, 0)
		data = le.AppendUint32(data, uint32(e[2]))
	}
	commit := uint64(len(data))
	if lost {
		commit |= 1 << 31
	}
	page := le.AppendUint64(nil, start)
	page = le.AppendUint64(page, commit)
	return append(append(page, data...), make([]byte, 4096-16-len(data))...)
}

func TestLockHoldsPairByCPU(t *testing.T) {
	const acquire, release = 40, 41
	l := NewLockHoldsParser(acquire, release)
	feed := func(cpu int, page []byte) {
		t.Helper()
		if err := l.Feed(cpu, page); err != nil {
			t.Fatal(err)
		}
	}
	// Interleaved CPUs, a hold that spans two pages of one CPU, another
	// event between acquire and release, and a lost-events page that
	// drops the pair left open on CPU 1.
	feed(0, rawPage(10_000_000, false, [3]uint64{10, acquire, 7}, [3]uint64{17_345, release, 7}, [3]uint64{100, acquire, 7}))
	feed(1, rawPage(10_000_000, false, [3]uint64{11, acquire, 9}))
	feed(0, rawPage(10_050_000, false, [3]uint64{0, 99, 7}, [3]uint64{20, release, 7}))
	feed(1, rawPage(10_090_000, true, [3]uint64{10, release, 9}, [3]uint64{10, acquire, 3}, [3]uint64{5_000, release, 3}))
	h := l.Holds()
	want := []Hold{{17.345, 7}, {32.565, 7}, {5, 3}}
	if len(h) != len(want) {
		t.Fatalf("holds %v, want %v", h, want)
	}
	for i := range want {
		if math.Abs(h[i].US-want[i].US) > 1e-9 || h[i].PID != want[i].PID {
			t.Fatalf("holds %v, want %v", h, want)
		}
	}
	if l.lost != 1 {
		t.Fatalf("lost %d", l.lost)
	}
	if got := HoldTimes(h, func(pid int32) bool { return pid == 3 }); len(got) != 1 || got[0] != 5 {
		t.Fatalf("holds of pid 3: %v", got)
	}
	if err := l.Feed(0, make([]byte, 8)); err == nil {
		t.Fatal("a torn page fed without error")
	}
	sum := Summarise("l", []float64{5, 1, 3, 2, 4})
	if sum.Count != 5 || sum.P50US != 3 || sum.MaxUS != 5 || sum.P99US != 5 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestIrqsoffWindowsOnFakeTracefs(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{"available_tracers": "irqsoff nop\n", "tracing_on": "0", "current_tracer": "nop", "tracing_max_latency": "0", "trace": ""}
	for f, v := range files {
		os.WriteFile(filepath.Join(dir, f), []byte(v), 0o644)
	}
	fs := FS{Root: dir}
	irq, err := StartIrqsoff(fs)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := fs.Read("current_tracer"); v != "irqsoff" {
		t.Fatalf("tracer %q", v)
	}
	fs.Write("tracing_max_latency", "45341")
	fs.Write("trace", seedTrace)
	if err := irq.Sample(); err != nil {
		t.Fatal(err)
	}
	if v, _ := fs.Read("tracing_max_latency"); v != "0" {
		t.Fatalf("max not reset: %q", v)
	}
	irq.Sample() // an empty window
	res, err := irq.Stop(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Windows) != 2 || res.Worst == nil || res.Worst.LatencyUS != 45341 || res.Worst.Holder != "cgroup_rstat_flush" {
		t.Fatalf("result %+v", res)
	}
	if _, err := StartIrqsoff(FS{Root: t.TempDir()}); err == nil {
		t.Fatal("started without tracefs")
	}
}

// A tracefs value file re-rendered between two read(2) calls tears under
// os.ReadFile; ReadValue must return what the first read returned. A FIFO
// stands in for that file: its writer delivers the "new rendering" only
// after the first read has been answered.
func TestReadValueDoesNotTear(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "tracing_max_latency")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		defer w.Close()
		if _, err := w.Write([]byte("4\n")); err != nil {
			done <- err
			return
		}
		time.Sleep(200 * time.Millisecond)
		_, err = w.Write([]byte("2\n"))
		done <- err
	}()
	got, err := FS{Root: dir}.ReadValue("tracing_max_latency")
	if err != nil {
		t.Fatal(err)
	}
	if got != "4\n" {
		t.Fatalf("ReadValue = %q, want the first read's %q", got, "4\n")
	}
	// Closing our end may make the writer's second write fail with EPIPE;
	// either way the goroutine must finish.
	<-done
}

// A new lock-hold instance has its events enabled but records nothing
// until Record(true) (a new tracefs instance records from the start, so
// NewLockHolds must turn it off), and Record(false) stops it again.
func TestLockHoldsRecordOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	inst := filepath.Join(dir, "instances", "t")
	header := "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n"
	files := map[string]string{
		"events/header_page":          header,
		"events/cgroup/locked/id":     "101\n",
		"events/cgroup/unlocked/id":   "102\n",
		"events/cgroup/locked/enable": "0", "events/cgroup/unlocked/enable": "0",
		"tracing_on": "1", "trace_clock": "[local] global", "buffer_size_kb": "1408",
		"per_cpu/cpu0/trace_pipe_raw": "", "per_cpu/cpu1/trace_pipe_raw": "",
	}
	for f, v := range files {
		p := filepath.Join(inst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := NewLockHolds(FS{Root: dir}, "t", "lock", "cgroup/locked", "cgroup/unlocked")
	if err != nil {
		t.Fatal(err)
	}
	fs := FS{Root: inst}
	read := func(f string) string { v, _ := fs.Read(f); return strings.TrimSpace(v) }
	if read("events/cgroup/locked/enable") != "1" || read("events/cgroup/unlocked/enable") != "1" {
		t.Fatal("events not enabled")
	}
	if got := read("tracing_on"); got != "0" {
		t.Fatalf("tracing_on = %q after NewLockHolds, want 0 (nothing recorded before Record)", got)
	}
	if got := read("trace_clock"); got != "mono" {
		t.Fatalf("trace_clock = %q, want mono (RecordFor bounds the window by CLOCK_MONOTONIC)", got)
	}
	l.now = func() uint64 { return 10_000_000 }
	if err := l.RecordFor(40 * time.Microsecond); err != nil || read("tracing_on") != "1" {
		t.Fatalf("RecordFor: tracing_on %q, %v", read("tracing_on"), err)
	}
	// The window ends at 10_040_000 ns: a hold starting at 10_039_990
	// is kept (its release may come later), one starting at 10_040_000
	// is not.
	const acquire, release = 101, 102
	for _, p := range [][]byte{
		rawPage(10_000_000, false, [3]uint64{10, acquire, 7}, [3]uint64{5_000, release, 7}),
		rawPage(10_039_990, false, [3]uint64{0, acquire, 7}, [3]uint64{3_000, release, 7}),
		rawPage(10_040_000, false, [3]uint64{0, acquire, 8}, [3]uint64{3_000, release, 8}),
	} {
		if err := l.Feed(0, p); err != nil {
			t.Fatal(err)
		}
	}
	if h := l.Holds(); len(h) != 2 || h[0].US != 5 || h[1].US != 3 || h[1].PID != 7 {
		t.Fatalf("holds %v, want the two that start before the window's end", h)
	}
	if err := l.Record(false); err != nil || read("tracing_on") != "0" {
		t.Fatalf("Record(false): tracing_on %q, %v", read("tracing_on"), err)
	}
	res, err := l.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 2 || !strings.Contains(res.Source, "1 later ones dropped") {
		t.Fatalf("summary %+v: want 2 holds and the dropped one named", res)
	}
	// A clock that cannot be read bounds nothing, and the summary says so.
	l, err = NewLockHolds(FS{Root: dir}, "t", "lock", "cgroup/locked", "cgroup/unlocked")
	if err != nil {
		t.Fatal(err)
	}
	l.now = func() uint64 { return 0 }
	if err := l.RecordFor(40 * time.Microsecond); err != nil {
		t.Fatal(err)
	}
	if err := l.Feed(0, rawPage(10_040_000, false, [3]uint64{0, acquire, 8}, [3]uint64{3_000, release, 8})); err != nil {
		t.Fatal(err)
	}
	if res, err := l.Stop(); err != nil || res.Count != 1 || !strings.Contains(res.Source, "window not bounded") {
		t.Fatalf("unbounded summary %+v, %v", res, err)
	}
}

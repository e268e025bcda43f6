package ftrace

import (
	"os"
	"path/filepath"
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

func TestLockHoldsPairByCPU(t *testing.T) {
	l := NewLockHoldsParser("cgroup_rstat_locked", "cgroup_rstat_unlock")
	// Interleaved CPUs, a partial line split across reads, a lost-events
	// marker that drops the open pair on CPU 1.
	l.Feed("  cat-1 [000] d.... 10.000010: cgroup_rstat_locked: root=0 cpu=-1\n  cat-2 [001] d.... 10.000011: cgroup_rstat_locked: root=0 cpu=-1\n  cat-1 [000] d.... 10.0000")
	l.Feed("30: cgroup_rstat_unlock: root=0 cpu=0\nCPU:1 [LOST 7 EVENTS]\n  cat-2 [001] d.... 10.000100: cgroup_rstat_unlock: root=0 cpu=0\n")
	l.Feed("  cat-1 [000] d.... 11.000000: cgroup_rstat_locked: x\n  cat-1 [000] d.... 11.000005: cgroup_rstat_unlock: x\n")
	h := l.Holds()
	if len(h) != 2 || h[0] != 20 || h[1] != 5 {
		t.Fatalf("holds %v, want [20 5]", h)
	}
	if l.lost != 7 {
		t.Fatalf("lost %d", l.lost)
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

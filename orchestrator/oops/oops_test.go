package oops

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
)

const warnLog = `[    5.123456] cgroup: some ordinary line
[   12.345678] ------------[ cut here ]------------
[   12.345680] kregress test warning
[   12.345699] WARNING: CPU: 1 PID: 234 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60
[   12.345701] Modules linked in:
[   12.345702] CPU: 1 UID: 0 PID: 234 Comm: kagent Not tainted 6.12.57 #1
[   12.345703] RIP: 0010:memory_stat_show+0x1f/0x60
[   12.345704] Call Trace:
[   12.345705]  <TASK>
[   12.345706]  seq_read_iter+0x10f/0x460
[   12.345707]  vfs_read+0x24a/0x330
[   12.345708]  </TASK>
[   12.345709] ---[ end trace 0000000000000000 ]---
[   12.400000] an unrelated line
[   13.345699] WARNING: CPU: 0 PID: 240 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60
[   13.345703] RIP: 0010:memory_stat_show+0x1f/0x60
[   13.345709] ---[ end trace 0000000000000000 ]---
`

func TestWarningTitledByFunctionAndCounted(t *testing.T) {
	fs := Parse([]byte(warnLog))
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %+v", fs)
	}
	f := fs[0]
	if f.Kind != results.FindingWarning || f.Title != "WARNING in memory_stat_show" || f.Count != 2 {
		t.Fatalf("finding %+v", f)
	}
	if !strings.HasPrefix(f.Excerpt, "------------[ cut here ]") || !strings.HasSuffix(f.Excerpt, "---[ end trace 0000000000000000 ]---") || strings.Contains(f.Excerpt, "unrelated") {
		t.Fatalf("excerpt:\n%s", f.Excerpt)
	}
	if strings.Contains(f.Excerpt, "[   12.") {
		t.Fatalf("timestamps left in the excerpt:\n%s", f.Excerpt)
	}
}

func TestTitles(t *testing.T) {
	for _, tc := range []struct {
		log   string
		kind  results.FindingKind
		title string
	}{
		{"WARNING: mm/swap.c:12 at folio_add_lru+0x1/0x2, CPU#0: kworker/0:1/12\n", results.FindingWarning, "WARNING in folio_add_lru"},
		{"WARNING: CPU: 3 PID: 1 at kernel/cgroup/rstat.c:88 css_rstat_flush.isra.0+0x44/0x90\n", results.FindingWarning, "WARNING in css_rstat_flush"},
		{"[   50.1] [  T123] BUG: kernel NULL pointer dereference, address: 0000000000000008\n#PF: supervisor read access in kernel mode\nRIP: 0010:cgroup_rstat_flush_locked+0x9a/0x3e0\n", results.FindingBug, "BUG: kernel NULL pointer dereference in cgroup_rstat_flush_locked"},
		{"BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580\nin_atomic(): 1, irqs_disabled(): 1, non_block: 0, pid: 77, name: kagent\nCall Trace:\n <TASK>\n dump_stack_lvl+0x5d/0x80\n __might_resched+0x15a/0x190\n mutex_lock+0x1a/0x40\n cpuset_attach+0x2e/0x1f0\n", results.FindingBug, "BUG: sleeping function called from invalid context in cpuset_attach"},
		{"BUG: scheduling while atomic: kagent/77/0x00000002\n", results.FindingBug, "BUG: scheduling while atomic"},
		{"BUG: KASAN: slab-use-after-free in lru_add_drain_cpu+0x3a/0x120\nRead of size 8 at addr ffff888003a0b120 by task kagent/99\n", results.FindingKASAN, "KASAN: slab-use-after-free in lru_add_drain_cpu"},
		{"UBSAN: array-index-out-of-bounds in mm/swap.c:321:12\nindex 64 is out of range for type 'int [64]'\n", results.FindingUBSAN, "UBSAN: array-index-out-of-bounds in mm/swap.c"},
		{"======================================================\nWARNING: possible circular locking dependency detected\n6.12.57 #1 Not tainted\n", results.FindingLockdep, "WARNING: possible circular locking dependency detected"},
		// As a 6.12 lockdep kernel printed it (TestDebugGate's candidate):
		// the call trace starts in lockdep's bookkeeping.
		{"WARNING: possible circular locking dependency detected\n6.12.118 #4 Not tainted\n------------------------------------------------------\nkagent/55 is trying to acquire lock:\nffffffff81afbfb8 (kregress_e2e_a){+.+.}-{2:2}, at: memory_stat_show+0xb0/0x116\n\nbut task is already holding lock:\nffffffff81afbf78 (kregress_e2e_b){+.+.}-{2:2}, at: memory_stat_show+0xa4/0x116\nCall Trace:\n <TASK>\n dump_stack_lvl+0x83/0x90\n add_lock_to_list+0x1/0x2\n", results.FindingLockdep, "WARNING: possible circular locking dependency detected in memory_stat_show"},
		{"watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [kagent:88]\nRIP: 0010:_raw_spin_unlock_irqrestore+0x1d/0x40\n", results.FindingLockup, "BUG: soft lockup in _raw_spin_unlock_irqrestore"},
		{"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\nrcu: \t1-...!: (0 ticks this GP)\n", results.FindingRCUStall, "INFO: rcu detected stall"},
		{"INFO: task kworker/u4:2:45 blocked for more than 120 seconds.\n      Not tainted 6.12.57 #1\nCall Trace:\n <TASK>\n __schedule+0x3c4/0xc40\n schedule+0x27/0xf0\n percpu_rwsem_wait+0x10a/0x130\n __percpu_down_read+0x5b/0x110\n cgroup_procs_write_start+0x1ab/0x1c0\n", results.FindingHungTask, "INFO: task hung in cgroup_procs_write_start"},
		{"Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP\nRIP: 0010:memcg_rstat_updated+0x55/0x120\n", results.FindingOops, "general protection fault in memcg_rstat_updated"},
		{"kernel BUG at mm/swap.c:1012!\nOops: invalid opcode: 0000 [#1] SMP\nRIP: 0010:lru_add_fn+0x2b0/0x2c0\n", results.FindingBug, "kernel BUG in lru_add_fn"},
		{"Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009\n", results.FindingPanic, "kernel panic: Attempted to kill init! exitcode=ADDR"},
	} {
		fs := Parse([]byte(tc.log))
		if len(fs) == 0 || fs[0].Kind != tc.kind || fs[0].Title != tc.title {
			t.Errorf("%q:\n got %+v\nwant %s %q", strings.SplitN(tc.log, "\n", 2)[0], fs, tc.kind, tc.title)
		}
	}
}

// A WARN with panic_on_warn is two findings: the warning, then the panic.
func TestPanicAfterReportIsItsOwnFinding(t *testing.T) {
	log := `------------[ cut here ]------------
WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60
RIP: 0010:memory_stat_show+0x1f/0x60
Kernel panic - not syncing: kernel: panic_on_warn set ...
---[ end Kernel panic - not syncing: kernel: panic_on_warn set ... ]---
`
	fs := Parse([]byte(log))
	if len(fs) != 2 || fs[0].Title != "WARNING in memory_stat_show" || fs[1].Kind != results.FindingPanic || fs[1].Title != "kernel panic: kernel: panic_on_warn set" {
		t.Fatalf("%+v", fs)
	}
}

// Ordinary boot and workload noise is not a report.
func TestQuietLogHasNoFindings(t *testing.T) {
	log := `[    0.000000] Linux version 6.12.57 (root@host) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC
[    0.123000] ACPI: bus type PCI registered
[    2.600000] Run /init as init process
[    9.000000] kagent invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
[    9.000100] Memory cgroup out of memory: Killed process 123 (kagent) total-vm:1000kB
[    9.100000] warning: process 'kagent' launched './x' with NULL argv
`
	if fs := Parse([]byte(log)); len(fs) != 0 {
		t.Fatalf("%+v", fs)
	}
}

func TestMergeKeepsOneFindingPerTitle(t *testing.T) {
	console := Parse([]byte(warnLog))
	dmesg := Parse([]byte(strings.Repeat("WARNING: CPU: 0 PID: 240 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60\n---[ end trace 0 ]---\n", 3) + "BUG: scheduling while atomic: x/1/0x2\n"))
	fs := Merge(console, dmesg)
	if len(fs) != 2 || fs[0].Count != 3 || !strings.Contains(fs[0].Excerpt, "cut here") || fs[1].Title != "BUG: scheduling while atomic" {
		t.Fatalf("%+v", fs)
	}
}

// A hostile or flooded console cannot hide a report: a line longer than
// any buffer, millions of lines before the panic, escape sequences in
// the title.
func TestHostileConsole(t *testing.T) {
	long := strings.Repeat("A", 2<<20) + "\n"
	fs := Parse([]byte(long + "Kernel panic - not syncing: after a long line\n"))
	if len(fs) != 1 || fs[0].Title != "kernel panic: after a long line" {
		t.Fatalf("a 2 MiB line hid the panic: %+v", fs)
	}
	flood := strings.Repeat("x\n", maxLines*2)
	log := "WARNING: CPU: 0 PID: 1 at mm/a.c:1 early_fn+0x1/0x2\n---[ end trace 0 ]---\n" + flood + "Kernel panic - not syncing: late\n"
	fs = Parse([]byte(log))
	if len(fs) != 2 || fs[0].Title != "WARNING in early_fn" || fs[1].Title != "kernel panic: late" {
		t.Fatalf("flooded log: %+v", fs)
	}
	if got := len(splitLines(log)); got != maxLines+1 {
		t.Fatalf("flooded log kept %d lines, want %d", got, maxLines+1)
	}
	fs = Parse([]byte("Kernel panic - not syncing: \x1b[2J\x1b]0;owned\x07 gone\n"))
	if len(fs) != 1 || fs[0].Title != `kernel panic: \x1b[2J\x1b]N;owned\x07 gone` || strings.ContainsRune(fs[0].Excerpt, 0x1b) {
		t.Fatalf("control characters reach the title: %+v", fs)
	}
	var many strings.Builder
	for i := 0; i < 2*maxFindings; i++ {
		fmt.Fprintf(&many, "BUG: KASAN: kind%c%c in f+0x1/0x2\n", 'a'+i%26, 'a'+i/26)
	}
	if fs := Parse([]byte(many.String())); len(fs) != maxFindings {
		t.Fatalf("%d distinct findings kept, want the cap %d", len(fs), maxFindings)
	}
}

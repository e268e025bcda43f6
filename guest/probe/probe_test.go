package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// guestKernel lays out a tracefs with the given events and a kallsyms
// with the given text symbols.
func guestKernel(t *testing.T, events, syms []string) *Kernel {
	root := t.TempDir()
	tracefs, proc := filepath.Join(root, "tracing"), filepath.Join(root, "proc")
	for _, ev := range events {
		dir := filepath.Join(tracefs, "events", ev)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "id"), []byte("42\n"), 0o644)
	}
	os.MkdirAll(proc, 0o755)
	var b strings.Builder
	for _, s := range syms {
		b.WriteString("ffffffff81000000 T " + s + "\n")
	}
	b.WriteString("ffffffff82000000 d cgroup_rstat_data_only\n")
	os.WriteFile(filepath.Join(proc, "kallsyms"), []byte(b.String()), 0o644)
	return &Kernel{Tracefs: tracefs, Proc: proc}
}

// 6.1: no rstat lock tracepoints, but rstat flush functions. Every
// lock-hold metric is unavailable with both missing events named; the
// windows share is measurable (6.1's names contain "rstat").
func TestUnmeasurable61(t *testing.T) {
	k := guestKernel(t, []string{"cgroup/cgroup_mkdir"}, []string{"cgroup_rstat_flush_irqsafe", "cgroup_rstat_flush_locked"})
	got := k.Unmeasurable([]string{"reads_per_sec", "rstat_lock_hold_p50_us", "irqsoff_rstat_windows_pct", "rstat_lock_hold_max_us"})
	if len(got) != 2 || got[0].Metric != "rstat_lock_hold_p50_us" || got[1].Metric != "rstat_lock_hold_max_us" {
		t.Fatalf("unavailable %+v: want the two lock-hold metrics", got)
	}
	want := "unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked, no tracepoint cgroup:cgroup_rstat_unlock"
	if got[0].Reason != want {
		t.Errorf("reason %q, want %q", got[0].Reason, want)
	}
}

// A kernel whose rstat functions were renamed past recognition (only a
// data symbol mentions rstat) cannot say whether rstat held a window: the
// share is unavailable rather than a silent 0; with the events there, the
// lock holds are measured.
func TestUnmeasurableRenamed(t *testing.T) {
	k := guestKernel(t, []string{"cgroup/cgroup_rstat_locked", "cgroup/cgroup_rstat_unlock"}, []string{"css_flush_stats"})
	got := k.Unmeasurable([]string{"rstat_lock_hold_p50_us", "irqsoff_rstat_windows_pct"})
	if len(got) != 1 || got[0].Metric != "irqsoff_rstat_windows_pct" || !strings.Contains(got[0].Reason, "no kernel function named *rstat*") {
		t.Fatalf("unavailable %+v", got)
	}
}

// Without a readable kallsyms the function need is missing and the
// reason says why: never a figure on a guess.
func TestUnreadableKallsyms(t *testing.T) {
	k := &Kernel{Tracefs: t.TempDir(), Proc: t.TempDir()}
	got := k.Unmeasurable([]string{"irqsoff_rstat_windows_pct"})
	if len(got) != 1 || !strings.Contains(got[0].Reason, "CONFIG_KALLSYMS") {
		t.Fatalf("unavailable %+v", got)
	}
}

// The host's check of a source tree: 6.12's header defines the events
// with DEFINE_EVENT(class, name, ...), 6.1's has none of them.
func TestTreeLacks(t *testing.T) {
	tree := func(header string) string {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "include/trace/events"), 0o755)
		os.WriteFile(filepath.Join(dir, "include/trace/events/cgroup.h"), []byte(header), 0o644)
		return dir
	}
	t612 := tree("DECLARE_EVENT_CLASS(cgroup_rstat,\n...\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_locked,\n\tTP_PROTO(x)\n);\nDEFINE_EVENT(cgroup_rstat, cgroup_rstat_unlock,\n);\n")
	t61 := tree("DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n/* cgroup_rstat_locked is mentioned in a comment only */\n")
	needs := Needs("rstat_lock_hold_p50_us")
	if lacks, err := TreeLacks(t612, needs); err != nil || len(lacks) != 0 {
		t.Errorf("6.12-like tree lacks %v, %v", lacks, err)
	}
	lacks, err := TreeLacks(t61, needs)
	if err != nil || len(lacks) != 2 || lacks[0].Name != "cgroup/cgroup_rstat_locked" {
		t.Errorf("6.1-like tree lacks %v, %v: want both events", lacks, err)
	}
	if lacks, _ := TreeLacks(t61, Needs("irqsoff_rstat_windows_pct")); len(lacks) != 0 {
		t.Errorf("function needs are the guest's to check, the tree check said %v", lacks)
	}
	if lacks, err := TreeLacks(t.TempDir(), needs); err != nil || len(lacks) != 0 {
		t.Errorf("a tree without trace headers: lacks %v, %v; want nothing (the guest's probe decides)", lacks, err)
	}
}

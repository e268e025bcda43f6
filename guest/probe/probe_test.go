package probe_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/guest/probe"
	"github.com/kregress/kregress/guest/workload"
)

// needs is what the rstat workload's metric needs of the kernel.
func needs(metric string) []probe.Need { return workload.Needs("rstat", metric) }

// wants are the probe's questions about the rstat workload's metrics.
func wants(metrics ...string) []probe.Want {
	var out []probe.Want
	for _, m := range metrics {
		out = append(out, probe.Want{Metric: m, Needs: needs(m)})
	}
	return out
}

// guestKernel lays out a tracefs with the given events and a kallsyms
// with the given text symbols.
func guestKernel(t *testing.T, events, syms []string) *probe.Kernel {
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
	return &probe.Kernel{Tracefs: tracefs, Proc: proc}
}

// 6.1: no rstat lock tracepoints, but rstat flush functions. Every
// lock-hold metric is unavailable with both missing events named; the
// windows share is measurable (6.1's names contain "rstat").
func TestUnmeasurable61(t *testing.T) {
	k := guestKernel(t, []string{"cgroup/cgroup_mkdir"}, []string{"cgroup_rstat_flush_irqsafe", "cgroup_rstat_flush_locked"})
	got := k.Unmeasurable(wants("reads_per_sec", "rstat_lock_hold_p50_us", "irqsoff_rstat_windows_pct", "rstat_lock_hold_max_us"))
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
	got := k.Unmeasurable(wants("rstat_lock_hold_p50_us", "irqsoff_rstat_windows_pct"))
	if len(got) != 1 || got[0].Metric != "irqsoff_rstat_windows_pct" || !strings.Contains(got[0].Reason, "no kernel function named *rstat*") {
		t.Fatalf("unavailable %+v", got)
	}
}

// Without a readable kallsyms the function need is missing and the
// reason says why: never a figure on a guess.
func TestUnreadableKallsyms(t *testing.T) {
	k := &probe.Kernel{Tracefs: t.TempDir(), Proc: t.TempDir()}
	got := k.Unmeasurable(wants("irqsoff_rstat_windows_pct"))
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
	lockNeeds := needs("rstat_lock_hold_p50_us")
	if lacks, err := probe.TreeLacks(t612, lockNeeds); err != nil || len(lacks) != 0 {
		t.Errorf("6.12-like tree lacks %v, %v", lacks, err)
	}
	lacks, err := probe.TreeLacks(t61, lockNeeds)
	if err != nil || len(lacks) != 2 || lacks[0].Name != "cgroup/cgroup_rstat_locked" {
		t.Errorf("6.1-like tree lacks %v, %v: want both events", lacks, err)
	}
	if lacks, _ := probe.TreeLacks(t61, needs("irqsoff_rstat_windows_pct")); len(lacks) != 0 {
		t.Errorf("function needs are the guest's to check, the tree check said %v", lacks)
	}
	// A tree without trace headers is no kernel tree: an error naming
	// it, not "nothing lacking" (hostile audit: every tracepoint counted
	// as present).
	empty := t.TempDir()
	if lacks, err := probe.TreeLacks(empty, lockNeeds); err == nil || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "include/trace/events") {
		t.Errorf("a tree without trace headers: lacks %v, %v; want an error naming the tree and the headers", lacks, err)
	}
}

// A tracepoint header that is a link to a device (a hostile tree's
// include/trace/events/x.h -> /dev/zero) is refused naming it, not read.
func TestTreeLacksRefusesALinkedHeader(t *testing.T) {
	dir := t.TempDir()
	events := filepath.Join(dir, "include/trace/events")
	os.MkdirAll(events, 0o755)
	if err := os.Symlink("/dev/zero", filepath.Join(events, "a.h")); err != nil {
		t.Fatal(err)
	}
	_, err := probe.TreeLacks(dir, needs("rstat_lock_hold_p50_us"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(events, "a.h")+" is a symbolic link") {
		t.Errorf("a header -> /dev/zero: %v, want it refused naming it", err)
	}
}

// An upstream kernel after the 6.15 rstat rework (none can be downloaded
// here; faked from what is known of it): per-subsystem locks, flush
// functions named css_rstat_*, and no cgroup:cgroup_rstat_locked/unlock.
// Without a code change, every metric any workload reports is measured
// there except the seven lock-hold figures, which need the old events;
// the irqs-off holder share still finds functions named *rstat*.
func TestNewerKernelMeasurableWithoutCodeChanges(t *testing.T) {
	k := guestKernel(t, []string{"cgroup/cgroup_mkdir", "cgroup/cgroup_rmdir"},
		[]string{"css_rstat_flush", "css_rstat_updated", "ss_rstat_init", "mem_cgroup_flush_stats"})
	oldEvents := map[string]bool{
		"rstat_lock_holds": true, "rstat_lock_hold_p50_us": true, "rstat_lock_hold_p99_us": true, "rstat_lock_hold_max_us": true,
		"rstat_lock_holds_readers": true, "rstat_lock_hold_reader_p50_us": true, "rstat_lock_hold_reader_p99_us": true,
	}
	rstat := workload.MetricNames("rstat")
	for m := range oldEvents {
		if !slices.Contains(rstat, m) {
			t.Fatalf("%s is no longer an rstat metric: update this test", m)
		}
	}
	measured := 0
	for _, w := range workload.Sorted() {
		names := workload.MetricNames(w)
		unavailable := map[string]string{}
		for _, u := range k.Unmeasurable(metrics.Wants(workload.Metrics(w))) {
			unavailable[u.Metric] = u.Reason
		}
		for _, m := range names {
			switch {
			case oldEvents[m] && !strings.Contains(unavailable[m], "no tracepoint cgroup:cgroup_rstat_locked"):
				t.Errorf("%s/%s: %q, want unavailable for the missing event", w, m, unavailable[m])
			case !oldEvents[m] && unavailable[m] != "":
				t.Errorf("%s/%s: unavailable (%s) on a kernel that has what it needs", w, m, unavailable[m])
			case !oldEvents[m]:
				measured++
			}
		}
	}
	if measured == 0 {
		t.Fatal("no metric measured")
	}
	// The host's check of such a tree before building: the lock-hold
	// primary is refused, the fallback (read latency) needs nothing.
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "include/trace/events"), 0o755)
	os.WriteFile(filepath.Join(tree, "include/trace/events/cgroup.h"), []byte("DEFINE_EVENT(cgroup, cgroup_mkdir,\n);\n"), 0o644)
	if lacks, err := probe.TreeLacks(tree, needs("rstat_lock_hold_p50_us")); err != nil || len(lacks) != 2 {
		t.Errorf("tree lacks %v, %v: want both lock events", lacks, err)
	}
	if len(needs("read_latency_p50_us")) != 0 {
		t.Error("the fallback primary needs something of the kernel")
	}
}

package contention

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
)

func TestParseLocks(t *testing.T) {
	got, err := ParseLocks("cgroup_mutex, css_set_lock,")
	if err != nil || !slices.Equal(got, []string{"cgroup_mutex", "css_set_lock"}) {
		t.Fatalf("ParseLocks = %v, %v", got, err)
	}
	for _, bad := range []string{"", ",", "a b", "x || lock_addr", "cgroup_mutex,cgroup_mutex", "a.b,a_b"} {
		if _, err := ParseLocks(bad); err == nil {
			t.Errorf("ParseLocks(%q) accepted", bad)
		}
	}
}

// Measure records around the whole run: the workload's own document keeps
// its metrics, each named lock's come after them, and a lock the kernel
// cannot resolve is unavailable with the reason.
func TestMeasureAddsLockMetrics(t *testing.T) {
	fs, kern := fakeKernel(t, true)
	inst := filepath.Join(fs.Root, "instances", instance)
	trace, err := os.ReadFile(filepath.Join("testdata", "trace-6.12.txt"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Measure(context.Background(), fs, kern, []string{"cgroup_mutex", "no_such_lock"}, nil, func(context.Context) (*agentproto.Document, error) {
		if on, _ := os.ReadFile(filepath.Join(inst, "tracing_on")); string(on) != "1" {
			t.Errorf("recording is not on during the run: tracing_on %q", on)
		}
		// What the kernel would have recorded meanwhile.
		if err := os.WriteFile(filepath.Join(inst, "trace"), trace, 0o644); err != nil {
			t.Fatal(err)
		}
		return &agentproto.Document{Metrics: []agentproto.Metric{{Name: "reads_per_sec", Value: 7}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range doc.Metrics {
		names = append(names, m.Name)
	}
	want := []string{"reads_per_sec", "lock_cgroup_mutex_contentions", "lock_cgroup_mutex_wait_p50_us", "lock_cgroup_mutex_wait_p99_us", "lock_cgroup_mutex_wait_max_us"}
	if !slices.Equal(names, want) {
		t.Errorf("metrics %v, want %v", names, want)
	}
	if len(doc.Unavailable) != 4 || !strings.Contains(doc.Unavailable[0].Reason, "no symbol no_such_lock") {
		t.Errorf("unavailable %+v", doc.Unavailable)
	}
}

// On a kernel without the tracepoints the run still runs and every
// metric of the named lock is unavailable saying so; a failed run is the
// error, not a document.
func TestMeasureWithoutTracepoints(t *testing.T) {
	fs, kern := fakeKernel(t, false)
	doc, err := Measure(context.Background(), fs, kern, []string{"cgroup_mutex"}, nil, func(context.Context) (*agentproto.Document, error) {
		return &agentproto.Document{}, nil
	})
	if err != nil || len(doc.Metrics) != 0 || len(doc.Unavailable) != 4 || !strings.HasPrefix(doc.Unavailable[0].Reason, "unavailable on this kernel: no tracepoint lock:contention_begin") {
		t.Fatalf("doc %+v, %v", doc, err)
	}
	boom := errors.New("boom")
	if _, err := Measure(context.Background(), fs, kern, []string{"cgroup_mutex"}, nil, func(context.Context) (*agentproto.Document, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the run's", err)
	}
}

// A wait counts under a function when its first contention_begin's stack
// has it, whatever the lock: the mutex waiter's second begin (a stack
// with memory_stat_show) is the same wait and does not move it; a frame
// that only starts with the name is another function.
func TestParseUnder(t *testing.T) {
	w, err := ParseUnder(open(t, "trace-stacks-6.12.txt"), []string{"memory_stat_show", "cgroup_procs_write", "kthread"})
	if err != nil {
		t.Fatal(err)
	}
	for fn, want := range map[string][]float64{"memory_stat_show": {9}, "cgroup_procs_write": {240}, "kthread": nil} {
		if got := w.Under[fn]; !slices.Equal(got, want) {
			t.Errorf("%s: waits %v, want %v", fn, got, want)
		}
	}
	if len(w.US) != 3 {
		t.Errorf("per lock %v: every lock's waits are still counted", w.US)
	}
}

// Under a function, the instance records every lock (no address filter)
// with each begin's stack, and its metrics follow the named locks'.
func TestSetupUnder(t *testing.T) {
	fs, kern := fakeKernel(t, true)
	inst := filepath.Join(fs.Root, "instances", instance)
	doc, err := Measure(context.Background(), fs, kern, []string{"cgroup_rstat_lock"}, []string{"memory_stat_show"}, func(context.Context) (*agentproto.Document, error) {
		trace, _ := os.ReadFile(filepath.Join("testdata", "trace-stacks-6.12.txt"))
		os.WriteFile(filepath.Join(inst, "trace"), trace, 0o644)
		return &agentproto.Document{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tr, _ := os.ReadFile(filepath.Join(inst, "events/lock/contention_begin/trigger")); string(tr) != "stacktrace" {
		t.Errorf("trigger %q", tr)
	}
	if _, err := os.Stat(filepath.Join(inst, "events/lock/contention_begin/filter")); err == nil {
		t.Error("a filter was set: the locks under a function are any locks")
	}
	var got []string
	for _, m := range doc.Metrics {
		got = append(got, m.Name)
	}
	want := []string{"lock_cgroup_rstat_lock_contentions", "lock_cgroup_rstat_lock_wait_p50_us", "lock_cgroup_rstat_lock_wait_p99_us", "lock_cgroup_rstat_lock_wait_max_us",
		"lock_under_memory_stat_show_contentions", "lock_under_memory_stat_show_wait_p50_us", "lock_under_memory_stat_show_wait_p99_us", "lock_under_memory_stat_show_wait_max_us"}
	if !slices.Equal(got, want) {
		t.Errorf("metrics %v\nwant %v", got, want)
	}
	fs2, kern2 := fakeKernel(t, false)
	doc, err = Measure(context.Background(), fs2, kern2, nil, []string{"memory_stat_show"}, func(context.Context) (*agentproto.Document, error) { return &agentproto.Document{}, nil })
	if err != nil || len(doc.Unavailable) != 4 || doc.Unavailable[0].Metric != "lock_under_memory_stat_show_contentions" {
		t.Errorf("without tracepoints: %+v %v", doc, err)
	}
}

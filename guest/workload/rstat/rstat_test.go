package rstat

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/ftrace"
	"github.com/kregress/kregress/guest/sysinfo"
	"github.com/kregress/kregress/guest/workload/param"
	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/percpu/percputest"
)

func TestPow2Bucket(t *testing.T) {
	for v, want := range map[float64]int{0.5: 0, 1: 1, 1.9: 1, 2: 2, 3: 2, 4: 3, 64: 7, 100: 7} {
		if got := Pow2Bucket(v); got != want {
			t.Errorf("Pow2Bucket(%v) = %d, want %d", v, got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Params{Readers: 2, Hogs: 2, Duration: 10 * time.Second, HogLimitMB: 64, Window: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	perCPU := ok
	perCPU.Readers, perCPU.Hogs = percpu.PerCPU, HogsPerCPU
	if err := perCPU.Validate(); err != nil {
		t.Fatalf("one reader and hog per online CPU: %v", err)
	}
	ok.Traced = 4 * time.Second
	if err := ok.Validate(); err != nil {
		t.Fatalf("traced 4s of 10s: %v", err)
	}
	for name, p := range map[string]Params{
		"traced shorter than a window": {Readers: 1, Hogs: 1, Duration: 10 * time.Second, HogLimitMB: 64, Window: time.Second, Traced: 500 * time.Millisecond},
		"traced all of it":             {Readers: 1, Hogs: 1, Duration: 10 * time.Second, HogLimitMB: 64, Window: time.Second, Traced: 10 * time.Second},
		"untraced under a window":      {Readers: 1, Hogs: 1, Duration: 10 * time.Second, HogLimitMB: 64, Window: time.Second, Traced: 9500 * time.Millisecond},
		"traced, duration":             {Readers: 1, Hogs: 1, Duration: 500 * time.Millisecond, HogLimitMB: 64, Window: 100 * time.Millisecond, Traced: 200 * time.Millisecond},
		"readers":                      {Readers: -1, Hogs: 1, Duration: time.Second, HogLimitMB: 64, Window: time.Second},
		"hogs":                         {Readers: 1, Hogs: -2, Duration: time.Second, HogLimitMB: 64, Window: time.Second},
		"duration":                     {Readers: 1, Hogs: 1, Duration: time.Millisecond, HogLimitMB: 64, Window: time.Second},
		"limit":                        {Readers: 1, Hogs: 1, Duration: time.Second, HogLimitMB: 1, Window: time.Second},
		"window":                       {Readers: 1, Hogs: 1, Duration: time.Second, HogLimitMB: 64, Window: time.Minute},
		"half":                         {Readers: 1, Hogs: 1, Duration: 2 * time.Second, HogLimitMB: 64, Window: 1500 * time.Millisecond},
		"hog mode":                     {Readers: 1, Hogs: 1, Duration: time.Second, HogLimitMB: 64, Window: time.Second, HogMode: "leaky"},
	} {
		if err := p.Validate(); err == nil {
			t.Errorf("%s out of range accepted", name)
		}
	}
}

// The traced phase is the second half unless Traced says how long it is;
// the untraced phase is the rest, and the report says both.
func TestPhases(t *testing.T) {
	for _, c := range []struct {
		duration, traced, wantUntraced, wantTraced time.Duration
	}{
		{10 * time.Second, 0, 5 * time.Second, 5 * time.Second},
		{3 * time.Second, 0, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{10 * time.Second, 4 * time.Second, 6 * time.Second, 4 * time.Second},
	} {
		p := Params{Duration: c.duration, Traced: c.traced}
		u, tr := p.phases()
		if u != c.wantUntraced || tr != c.wantTraced {
			t.Errorf("duration %s, traced %s: phases %s + %s, want %s + %s", c.duration, c.traced, u, tr, c.wantUntraced, c.wantTraced)
		}
		_, set := p.Map()["traced"]
		if set != (c.traced != 0) {
			t.Errorf("traced %s: in the report's params = %v", c.traced, set)
		}
	}
}

// A steady hog gets a share of half of memory.max, so the hogs together
// never meet the limit (no OOM kill, the variance the mode removes); the
// default is the seed's OOM cycle.
func TestHogArgs(t *testing.T) {
	p := Params{Hogs: 2, HogLimitMB: 64}
	if got := strings.Join(p.hogArgs(), " "); got != "hog" {
		t.Errorf("default mode: %q, want the OOM hog", got)
	}
	p.HogMode = HogSteady
	if got := strings.Join(p.hogArgs(), " "); got != "hog -steady-mb 16" {
		t.Errorf("steady, 2 hogs, 64 MiB: %q, want 16 MiB each", got)
	}
	p.Hogs, p.HogLimitMB = 40, 8
	if got := strings.Join(p.hogArgs(), " "); got != "hog -steady-mb 1" {
		t.Errorf("steady, more hogs than MiB: %q, want at least 1 MiB each", got)
	}
	if err := SteadyHog(0); err == nil {
		t.Error("SteadyHog(0) accepted an empty ring")
	}
}

func TestCountCPUList(t *testing.T) {
	for list, want := range map[string]int{"0": 1, "0-1": 2, "0-3,8,10-11": 7} {
		if got, err := sysinfo.CountCPUList(list); err != nil || got != want {
			t.Errorf("%q: %d %v", list, got, err)
		}
	}
	if _, err := sysinfo.CountCPUList("3-1"); err == nil {
		t.Error("backwards range accepted")
	}
}

// The defaults are one reader and one hog per online CPU (2 each at the
// built-in experiments' 2 vCPUs); a count given is kept, hogs 0 is none,
// and the report shows the counts that ran.
func TestResolveCounts(t *testing.T) {
	sp := (&percputest.Fake{}).Spread(t, 0, 1, 2, 3, 5, 7, 8)
	p := Params{Readers: percpu.PerCPU, Hogs: HogsPerCPU, HogLimitMB: 64, HogMode: HogSteady}.resolve(sp)
	if p.Readers != 7 || p.Hogs != 7 || p.Map()["readers"] != "7" || p.Map()["hogs"] != "7" {
		t.Errorf("per CPU on 7 CPUs: readers %d, hogs %d, report %v", p.Readers, p.Hogs, p.Map())
	}
	if got := strings.Join(p.hogArgs(), " "); got != "hog -steady-mb 4" {
		t.Errorf("7 steady hogs share 32 MiB as %q, want 4 MiB each", got)
	}
	p = Params{Readers: 1, Hogs: 0}.resolve(sp)
	if p.Readers != 1 || p.Hogs != 0 {
		t.Errorf("readers 1, hogs 0 became %d, %d", p.Readers, p.Hogs)
	}
	var defaults Params
	fs := flag.NewFlagSet("rstat", flag.ContinueOnError)
	defaults.Flags(fs)
	param.Defaults(fs)
	if d := defaults.resolve((&percputest.Fake{}).Spread(t, 0, 1)); d.Readers != 2 || d.Hogs != 2 {
		t.Errorf("defaults at 2 CPUs: readers %d, hogs %d, want 2 and 2 as before they followed the CPUs", d.Readers, d.Hogs)
	}
}

// Reader i and hog i run on the spread's CPU i, and cpus_used counts the
// CPUs the readers reported after their reads, not those they asked for.
func TestReadPhasePinsEveryActor(t *testing.T) {
	stat := filepath.Join(t.TempDir(), "memory.stat")
	os.WriteFile(stat, []byte("anon 0\n"), 0o644)
	for _, c := range []struct {
		name   string
		thread func(cpu int) (int, error)
		want   int
	}{
		{"pins held", nil, 3},
		{"every reader on CPU 2", func(int) (int, error) { return 2, nil }, 1},
	} {
		fake := &percputest.Fake{Thread: c.thread}
		sp := fake.Spread(t, 0, 2, 5)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		// The hogs' binary does not exist: each hog's thread is pinned,
		// then its start fails and is retried until the phase ends.
		ph := readPhase(ctx, Params{Readers: 3, Hogs: 3}, sp, "/nonexistent/kagent", t.TempDir(), stat, nil)
		cancel()
		if ph.err != nil || ph.reads == 0 {
			t.Fatalf("%s: %d reads, %v", c.name, ph.reads, ph.err)
		}
		if got := fake.Pins(); !slices.Equal(got, []int{0, 0, 2, 2, 5, 5}) || fake.Released() != 6 {
			t.Errorf("%s: pinned %v, released %d, want a reader and a hog on each of 0, 2, 5", c.name, got, fake.Released())
		}
		if sp.Used() != c.want {
			t.Errorf("%s: cpus_used %d, want %d", c.name, sp.Used(), c.want)
		}
	}
}

// The reported throughput leaves out the warm-up window and averages the
// others; with fewer windows it is the plain rate.
func TestPhaseRate(t *testing.T) {
	ph := phase{reads: 900, elapsed: 3 * time.Second, windows: []float64{50, 400, 100, 390, 410}}
	if r, how := ph.rate(); r != 325 || !strings.Contains(how, "mean of 4 windows") {
		t.Fatalf("rate %v (%s), want 325 (mean of 400, 100, 390, 410)", r, how)
	}
	ph.windows = ph.windows[:2]
	if r, _ := ph.rate(); r != 300 {
		t.Fatalf("two windows: %v, want reads/elapsed 300", r)
	}
}

func TestRateOnTicks(t *testing.T) {
	// Three ticks 0.5 s, 1 s and 0.25 s apart after 10, 40 and 45 reads: the
	// rates are reads per second of each window, whatever the host's timing.
	counts := []int64{0, 10, 40, 45}
	var calls int
	count := func() int64 { c := counts[calls]; calls++; return c }
	start := time.Unix(1000, 0)
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []float64)
	go func() { done <- rateOnTicks(ctx, start, ticks, count) }()
	for _, d := range []time.Duration{500 * time.Millisecond, 1500 * time.Millisecond, 1750 * time.Millisecond} {
		ticks <- start.Add(d)
	}
	cancel()
	got := <-done
	want := []float64{20, 30, 20}
	if len(got) != len(want) {
		t.Fatalf("rates %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("window %d: rate %v, want %v", i, got[i], want[i])
		}
	}
}

func TestCountWindowsOff(t *testing.T) {
	if got := countWindows(context.Background(), 0, func() int64 { return 1 }); got != nil {
		t.Errorf("window 0 gave windows %v, want none", got)
	}
}

// The lock holds' histogram is reported beside the read latencies', with
// every hold in its power-of-2 bucket; without holds there is none.
func TestMetricsHistograms(t *testing.T) {
	holds := []ftrace.Hold{{US: 2, PID: 10}, {US: 3, PID: 10}, {US: 900, PID: 11}}
	m, h := metrics(10, 5, [][]float32{{0.5, 3}}, nil, holder, nil, holds, func(pid int32) bool { return pid == 10 }, 0, 0)
	byName := map[string]float64{}
	for _, x := range m {
		byName[x.Name] = x.Value
	}
	if byName["rstat_lock_holds_readers"] != 2 || byName["rstat_lock_hold_reader_p99_us"] != 3 {
		t.Errorf("reader metrics %v: want 2 holds, p99 3 (the other task's 900 us left out)", byName)
	}
	got := h["rstat_lock_hold_us"].Buckets
	if len(got) != 11 || got[2] != 2 || got[10] != 1 {
		t.Errorf("lock hold buckets %v, want 2 in [2,4) and 1 in [512,1024)", got)
	}
	if lat := h["read_latency_us"].Buckets; len(lat) != 3 || lat[0] != 1 || lat[2] != 1 {
		t.Errorf("read latency buckets %v", lat)
	}
	if _, h := metrics(10, 5, nil, nil, holder, nil, nil, ownThreads(), 0, 0); len(h) != 1 {
		t.Errorf("histograms without holds: %v", h)
	}
}

// On a kernel with neither the lock's hold events nor a function named
// *rstat*, every probed metric is reported unavailable, in the order the
// report has always listed them: the lock's holds, then the holder
// share; and the windows are not classified.
func TestProbeLocksReportsWhatTheKernelLacks(t *testing.T) {
	dir := t.TempDir()
	tracefs := filepath.Join(dir, "tracing")
	os.MkdirAll(filepath.Join(tracefs, "events"), 0o755)
	os.WriteFile(filepath.Join(dir, "kallsyms"), []byte("ffffffff81000000 T _stext\nffffffff81000100 t do_one_initcall\n"), 0o644)
	doc := &agentproto.Document{}
	locks, heldBy := probeLocks(ftrace.FS{Root: tracefs}, Params{Tracefs: tracefs, Proc: dir}, doc)
	if locks != nil || heldBy != nil {
		t.Errorf("locks %v, holder %v on a kernel without either", locks, heldBy)
	}
	var got []string
	for _, u := range doc.Unavailable {
		got = append(got, u.Metric)
	}
	want := []string{"rstat_lock_holds", "rstat_lock_hold_p50_us", "rstat_lock_hold_p99_us", "rstat_lock_hold_max_us",
		"rstat_lock_holds_readers", "rstat_lock_hold_reader_p50_us", "rstat_lock_hold_reader_p99_us", "irqsoff_rstat_windows_pct"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("unavailable %v, want %v", got, want)
	}
	if !strings.Contains(doc.Unavailable[0].Reason, "no tracepoint cgroup:cgroup_rstat_locked") {
		t.Errorf("reason %q", doc.Unavailable[0].Reason)
	}
}

package compare_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// loadedDiff compares comparetest.LoadedHost's cells (10 boots a side,
// a 2-core host) with the default options.
func loadedDiff(t *testing.T, clock string, baseLoad, candLoad, holdRatio, pctRatio float64) *compare.Diff {
	t.Helper()
	d, err := compare.Compare(comparetest.LoadedHost(clock, 2, baseLoad, candLoad, holdRatio, pctRatio, 10), "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func metricOf(t *testing.T, d *compare.Diff, name string) compare.Metric {
	t.Helper()
	for _, m := range d.Metrics["cand"] {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s in %v", name, d.Metrics["cand"])
	return compare.Metric{}
}

// A lock hold 20% longer in every boot, measured on the host's clock
// while the candidate's host ran at load 8 on 2 cores and the
// baseline's at 1: the load alone can stretch it that much, so it is not
// called a regression. The comparison is UNJUDGED (exit 9 under a gate)
// and says which loads, the bound, and what would judge it.
func TestHostLoadMismatchHoldsTimingRegression(t *testing.T) {
	for _, clock := range []string{"host", ""} {
		d := loadedDiff(t, clock, 1, 8, 1.2, 1)
		l := d.LoadMismatch["cand"]
		if l == nil {
			t.Fatalf("clock %q: loads 1 vs 8 on 2 cores are not a mismatch", clock)
		}
		if l.Base.Load1 != 1 || l.Cand.Load1 != 8 || l.Base.Cores != 2 || l.Cand.Contention != 4 || l.Base.Contention != 1 || l.Ratio != 4 || l.Bound != compare.DefaultLoadBound {
			t.Fatalf("clock %q: mismatch %+v", clock, *l)
		}
		hold := metricOf(t, d, "rstat_lock_hold_p99_us")
		if hold.Verdict != verdict.Unjudged || !hold.LoadHeld {
			t.Fatalf("clock %q: lock hold +20%% at unlike loads is %s (held %v), want unjudged and held", clock, hold.Verdict, hold.LoadHeld)
		}
		if len(d.Regressions()) != 0 {
			t.Fatalf("clock %q: regressions called from the load: %v", clock, d.Regressions())
		}
		if got := compare.Judge(d); got != verdict.ComparisonUnjudged || got.Exit() != verdict.ExitUnjudged {
			t.Fatalf("clock %q: judged %s (exit %d), want unjudged, exit 9", clock, got, got.Exit())
		}
		head := d.Headline()
		for _, want := range []string{"UNJUDGED", "rstat_lock_hold_p99_us +20.0%", "not called a regression", "host load 1.0 on 2 cores", "at 8.0 on 2", "4.00x", "load_bound 1.25", "interleaved in one session", "vm.clock icount"} {
			if !strings.Contains(head, want) {
				t.Errorf("clock %q: headline lacks %q: %s", clock, want, head)
			}
		}
		if notes := d.LoadNotes(); len(notes) != 1 || !strings.Contains(notes[0], "host load differed") {
			t.Errorf("clock %q: load notes %q", clock, notes)
		}
		// More boots at tonight's load cannot judge it: no look is
		// spent on it, no boot count is offered for it.
		if slices.Contains(d.Unsure(), "cand/rstat_lock_hold_p99_us") || d.BootsToJudge() != 0 {
			t.Errorf("clock %q: held metric is unsure %v, boots to judge %d", clock, d.Unsure(), d.BootsToJudge())
		}
		// The nightly rejudges its diffs together: the hold holds.
		compare.Rejudge(d)
		if m := metricOf(t, d, "rstat_lock_hold_p99_us"); !m.LoadHeld || m.Verdict != verdict.Unjudged {
			t.Fatalf("clock %q: rejudged, the hold is lost: %s", clock, m.Verdict)
		}
	}
}

// Only timing metrics move with the host's clock: a share of windows
// that got worse is still called, and fails the comparison.
func TestHostLoadMismatchCallsNonTimingRegression(t *testing.T) {
	d := loadedDiff(t, "host", 1, 8, 1.2, 1.5)
	if m := metricOf(t, d, "irqsoff_rstat_windows_pct"); m.Verdict != verdict.Regression || m.LoadHeld {
		t.Fatalf("a share (%%) 1.5x worse at unlike loads is %s (held %v), want a regression", m.Verdict, m.LoadHeld)
	}
	if !metricOf(t, d, "rstat_lock_hold_p99_us").LoadHeld {
		t.Fatal("the timing metric beside it was not held")
	}
	if compare.Judge(d) != verdict.ComparisonRegression {
		t.Fatalf("judged %s, want a regression", compare.Judge(d))
	}
}

// Where the hold does not apply the regression is called: guests on the
// icount clock (time counts instructions, whatever the load), equal
// loads, loads within the bound, loads not recorded (runs stored before
// they were), the bound off.
func TestHostLoadMismatchDoesNotApply(t *testing.T) {
	for _, c := range []struct {
		name               string
		clock              string
		baseLoad, candLoad float64
		opts               compare.Options
		oldRecord          bool
	}{
		{name: "icount clock", clock: "icount shift=3", baseLoad: 1, candLoad: 8},
		{name: "equal loads", clock: "host", baseLoad: 8, candLoad: 8},
		{name: "both below the cores", clock: "host", baseLoad: 0.3, candLoad: 1.9},
		{name: "within the bound", clock: "host", baseLoad: 4, candLoad: 4.8},
		{name: "load not recorded", clock: "host", baseLoad: -1, candLoad: 8},
		{name: "bound off", clock: "host", baseLoad: 1, candLoad: 8, opts: compare.Options{LoadBound: math.Inf(1)}},
	} {
		d, err := compare.Compare(comparetest.LoadedHost(c.clock, 2, c.baseLoad, c.candLoad, 1.2, 1, 10), "base", c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.LoadMismatch) != 0 || len(d.LoadNotes()) != 0 {
			t.Errorf("%s: load mismatch %v", c.name, d.LoadNotes())
		}
		if m := metricOf(t, d, "rstat_lock_hold_p99_us"); m.Verdict != verdict.Regression || m.LoadHeld {
			t.Errorf("%s: lock hold +20%% in every boot is %s (held %v), want a regression", c.name, m.Verdict, m.LoadHeld)
		}
		if compare.Judge(d) != verdict.ComparisonRegression {
			t.Errorf("%s: judged %s, want a regression", c.name, compare.Judge(d))
		}
	}
}

// A cell stored with only its load average at start (HostLoad1) and the
// host's cores is read as well as one with the full HostLoad record.
func TestHostLoadMismatchReadsOlderRecord(t *testing.T) {
	rs := comparetest.LoadedHost("", 2, 1, 8, 1.2, 1, 10)
	for _, r := range rs {
		r.Provenance.HostLoad = nil
	}
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := d.LoadMismatch["cand"]; l == nil || l.Ratio != 4 {
		t.Fatalf("mismatch from HostLoad1 and HostCores: %+v", l)
	}
}

// A timing improvement at unlike loads is kept (it fails nothing) but
// says the load may be all it is.
func TestHostLoadMismatchWarnsImprovement(t *testing.T) {
	d := loadedDiff(t, "host", 8, 1, 1/1.2, 1)
	m := metricOf(t, d, "rstat_lock_hold_p99_us")
	if m.Verdict != verdict.Improvement || m.LoadHeld {
		t.Fatalf("lock hold shorter at a lighter load: %s (held %v)", m.Verdict, m.LoadHeld)
	}
	if !slices.ContainsFunc(m.Warnings, func(w string) bool { return strings.Contains(w, "may be the load's") }) {
		t.Fatalf("no load warning: %q", m.Warnings)
	}
}

// One side's cell on the icount clock makes that side not host-clock:
// no note (the clocks' mismatch is the comparability check's).
func TestHostLoadMismatchNeedsBothSidesOnHostClock(t *testing.T) {
	rs := comparetest.LoadedHost("host", 2, 1, 8, 1.2, 1, 10)
	for _, r := range results.OfVariant(rs, "cand") {
		r.Provenance.Clock = "icount shift=3"
	}
	d, err := compare.Compare(rs, "base", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.LoadMismatch) != 0 {
		t.Fatalf("mixed clocks: %v", d.LoadNotes())
	}
}

func TestTimingUnit(t *testing.T) {
	for unit, want := range map[string]bool{
		"us": true, "ns": true, "s": true, "ms": true, "ns/op": true, "reads/s": true, "execs/s": true, "MB/s": true, "moves/s": true,
		"%": false, "n": false, "kills": false, "holds": false, "count": false, "x": false, "": false, "waits": false, "bytes": false,
	} {
		if got := compare.TimingUnit(unit); got != want {
			t.Errorf("TimingUnit(%q) = %v, want %v", unit, got, want)
		}
	}
}

func TestLoadBoundValidated(t *testing.T) {
	for _, b := range []float64{1, 0.5, -1, math.NaN()} {
		if err := (compare.Options{LoadBound: b}).Validate(); err == nil || !strings.Contains(err.Error(), "load-bound") {
			t.Errorf("load bound %g: %v", b, err)
		}
	}
	for _, b := range []float64{0, 1.25, 3, math.Inf(1)} {
		if err := (compare.Options{LoadBound: b}).Validate(); err != nil {
			t.Errorf("load bound %g: %v", b, err)
		}
	}
}

package compare_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// secondaryNight is 5 boots of a night shaped as the rstat workload's:
// the primary metric flat around 6.6 us, reads/s and read latency around
// the given medians (every boot within +-5% of them), and eight more
// secondary metrics without change.
func secondaryNight(rng *rand.Rand, variant string, reads, latency float64) []*results.Result {
	return secondaryNightSpread(rng, variant, reads, latency, 0.3)
}

// secondaryNightSpread is secondaryNight with m1..m8 uniform within
// ±spread of 100.
func secondaryNightSpread(rng *rand.Rand, variant string, reads, latency, spread float64) []*results.Result {
	var rs []*results.Result
	for i := 0; i < 5; i++ {
		jitter := func(v float64) float64 { return v * (0.95 + 0.1*rng.Float64()) }
		r := &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK}
		r.Metrics = append(r.Metrics,
			agentproto.Metric{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 6.6 * (0.7 + 0.6*rng.Float64())},
			agentproto.Metric{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: jitter(reads)},
			agentproto.Metric{Name: "read_latency_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: jitter(latency)})
		for _, name := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"} {
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 * (1 - spread + 2*spread*rng.Float64())})
		}
		rs = append(rs, r)
	}
	return rs
}

// The case that passed: two 5-boot nights, reads/s 3234 -> 1179 and read
// latency p50 150 -> 503 us in every boot, the primary flat. Each is
// unjudged (5+5 in a family of 10 cannot reach alpha), and the verdict
// said "no significant change" and passed the gate. It must be UNJUDGED,
// exit 9 under --fail-on-regression, naming both metrics.
func TestSeenSecondaryRegressionIsUnjudged(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 1))
	d, err := compare.CompareGroups([]compare.Group{
		{Label: "1/tip", Results: secondaryNight(rng, "tip", 3234, 150)},
		{Label: "2/tip", Results: secondaryNight(rng, "tip", 1179, 503)},
	}, compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range d.Metrics["2/tip"] {
		if (m.Name == "reads_per_sec" || m.Name == "read_latency_p50_us") && (m.Verdict != verdict.Unjudged || m.Seen == "") {
			t.Fatalf("%s: verdict %s, seen %q: want unjudged and seen (every boot beyond every baseline boot)", m.Name, m.Verdict, m.Seen)
		}
	}
	head := d.Headline()
	if strings.Contains(head, "no significant change") || !strings.HasPrefix(head, "UNJUDGED") {
		t.Fatalf("headline %q: want UNJUDGED, never no significant change", head)
	}
	for _, want := range []string{"reads_per_sec -6", "read_latency_p50_us +2", "every boot below every baseline boot", "primary rstat_lock_hold_p50_us:"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline %q does not say %q", head, want)
		}
	}
	v, err := compare.Gate(false, d)
	if err != nil || v != verdict.ComparisonUnjudged || v.Exit() != verdict.ExitUnjudged {
		t.Fatalf("gate: %v (exit %d), %v: want unjudged, exit 9", v, v.Exit(), err)
	}
}

// A null comparison at 5+5 whose secondary metrics overlap, and whose
// boots are tight enough to rule out 1.5x, is not UNJUDGED, but it does
// not say "no significant change" either: it names what it could not
// judge and the boots that would.
func TestNotJudgedIsNamedNotPassedAsNoChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 2))
	var d *compare.Diff
	for try := 0; ; try++ {
		var err error
		d, err = compare.CompareGroups([]compare.Group{
			{Label: "a", Results: secondaryNightSpread(rng, "x", 1000, 100, 0.05)},
			{Label: "b", Results: secondaryNightSpread(rng, "x", 1000, 100, 0.05)},
		}, compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Unjudged()) == 0 && len(d.Regressions()) == 0 {
			break
		}
		if try > 20 {
			t.Fatal("no null comparison without a seen change in 20 draws")
		}
	}
	head := d.Headline()
	if strings.Contains(head, "no significant change") || !strings.Contains(head, "not judged at 5+5, no regression seen") || !strings.Contains(head, "boots per side would judge them") {
		t.Fatalf("headline %q: must name what was not judged at 5+5 and the boots that would", head)
	}
	if v, _ := compare.Gate(false, d); v != verdict.ComparisonPass {
		t.Fatalf("gate %s: a null comparison whose unjudged metrics did not look changed passes", v)
	}
}

// allGating names every metric of secondaryNight as gating.
var allGating = []string{"rstat_lock_hold_p50_us", "reads_per_sec", "read_latency_p50_us", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"}

// A null comparison at 5+5 whose gating secondary metrics spread ±30%
// between boots cannot rule out that one of them is 1.5 times worse: it
// is UNJUDGED, names the metrics with how bad each could be and the boots
// that would rule them out; with the margin off it passes.
func TestNotRuledOutIsUnjudged(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 3))
	groups := []compare.Group{
		{Label: "a", Results: secondaryNight(rng, "x", 1000, 100)},
		{Label: "b", Results: secondaryNight(rng, "x", 1000, 100)},
	}
	o := compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}, Gating: allGating}
	d, err := compare.CompareGroups(groups, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Regressions()) > 0 {
		t.Fatalf("null draw flagged: %v", d.Regressions())
	}
	head := d.Headline()
	if !strings.HasPrefix(head, "UNJUDGED") || !strings.Contains(head, "not ruled out at 5+5 (a pass needs each metric's boots to exclude 1.5x worse)") || !strings.Contains(head, "(could be +") || !strings.Contains(head, "boots per side would judge them") {
		t.Fatalf("headline %q: want UNJUDGED naming what was not ruled out", head)
	}
	if v, _ := compare.Gate(false, d); v != verdict.ComparisonUnjudged {
		t.Fatalf("gate %s, want unjudged", v)
	}
	if need := d.BootsToJudge(); need <= 5 {
		t.Fatalf("BootsToJudge %d: want more than the 5 it has", need)
	}
	o.RuleOut = math.Inf(1)
	if d, err = compare.CompareGroups(groups, o); err != nil {
		t.Fatal(err)
	}
	if v, _ := compare.Gate(false, d); v != verdict.ComparisonPass {
		t.Fatalf("rule-out off: gate %s, want pass", v)
	}
}

// Unsure: what more boots may decide.
func TestUnsure(t *testing.T) {
	for _, c := range []struct {
		m          compare.Metric
		anyPrimary bool
		want       bool
	}{
		{compare.Metric{Verdict: verdict.NoChange, Q: 0.1, Alpha: 0.05}, true, true},
		{compare.Metric{Verdict: verdict.NoChange, Q: 0.5, Alpha: 0.05}, true, false},
		{compare.Metric{Verdict: verdict.Regression, Q: 0.01, Alpha: 0.05}, true, false},
		{compare.Metric{Verdict: verdict.Unjudged, Q: 0.9, Alpha: 0.05, Primary: true}, true, true},
		{compare.Metric{Verdict: verdict.Unjudged, Q: 0.9, Alpha: 0.05}, true, false},
		{compare.Metric{Verdict: verdict.Unjudged, Q: 0.9, Alpha: 0.05}, false, true},
		{compare.Metric{Verdict: verdict.Unjudged, Q: 0.9, Alpha: 0.05, Seen: "every boot below every baseline boot"}, true, true},
		{compare.Metric{Verdict: verdict.Unjudged, Q: 0.15, Alpha: 0.05}, true, true},
		{compare.Metric{Verdict: verdict.Info}, false, false},
		{compare.Metric{Verdict: verdict.NoChange, Q: 0.5, Alpha: 0.05, NotRuledOut: true}, true, true},
	} {
		if got := c.m.Unsure(0.2, c.anyPrimary); got != c.want {
			t.Errorf("%+v (any primary %v): Unsure = %v, want %v", c.m, c.anyPrimary, got, c.want)
		}
	}
}

// A change within a metric's noise floor is not "seen": the floor says
// changes that small are not the metric's verdict (judge excuses a
// significant one), so weaker evidence of one must not make a night
// UNJUDGED. The same boots without the floor are seen; a change beyond
// the floor is seen with it.
func TestSeenRespectsTheNoiseFloor(t *testing.T) {
	night := func(variant string, hold float64) []*results.Result {
		var rs []*results.Result
		for i := 0; i < 5; i++ {
			r := &results.Result{Variant: variant, Repetition: i + 1, Status: results.StatusOK}
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: hold + 0.1*float64(i)})
			for _, name := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"} {
				r.Metrics = append(r.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 + float64(i)})
			}
			rs = append(rs, r)
		}
		return rs
	}
	seen := func(after float64, floor map[string]float64) compare.Metric {
		t.Helper()
		d, err := compare.CompareGroups([]compare.Group{{Label: "1/tip", Results: night("tip", 4)}, {Label: "2/tip", Results: night("tip", after)}},
			compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}, NoiseFloorPct: floor, RuleOut: math.Inf(1)})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range d.Metrics["2/tip"] {
			if m.Name == "rstat_lock_hold_p50_us" {
				return m
			}
		}
		t.Fatal("no primary in the diff")
		return compare.Metric{}
	}
	floor := map[string]float64{"rstat_lock_hold_p50_us": 100}
	// 4 -> 6 us (+50%), every boot above every baseline boot.
	if m := seen(6, nil); m.Seen == "" && m.Verdict != verdict.Regression {
		t.Fatalf("+50%% in every boot, no floor: verdict %s, not seen", m.Verdict)
	}
	if m := seen(6, floor); m.Seen != "" || m.Verdict != verdict.NoChange {
		t.Errorf("+50%% within a floor of 100%%: verdict %s, seen %q; want no change, not seen", m.Verdict, m.Seen)
	}
	if m := seen(10, floor); m.Seen == "" && m.Verdict != verdict.Regression {
		t.Errorf("+150%% beyond a floor of 100%%: verdict %s, not seen", m.Verdict)
	}
}

// The same null comparison with the default roles: the secondary
// lower-is-better metrics are watched, so their spread is reported with
// how bad each could be, and the comparison passes; a watched metric seen
// to get worse still keeps it from passing; an unknown gating metric is
// refused.
func TestWatchedNotRuledOutIsReportedNotGated(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 3))
	groups := []compare.Group{
		{Label: "a", Results: secondaryNight(rng, "x", 1000, 100)},
		{Label: "b", Results: secondaryNight(rng, "x", 1000, 100)},
	}
	o := compare.Options{Alpha: 0.05, DefaultPrimary: []string{"rstat_lock_hold_p50_us"}}
	d, err := compare.CompareGroups(groups, o)
	if err != nil {
		t.Fatal(err)
	}
	head := d.Headline()
	// These watched metrics are unjudged at 5+5, so they are named among
	// the metrics not judged, each with how bad it could be.
	if strings.HasPrefix(head, "UNJUDGED") || !strings.Contains(head, "(watched, could be +") {
		t.Fatalf("headline %q: want a pass naming the watched metrics not ruled out", head)
	}
	if v, _ := compare.Gate(false, d); v != verdict.ComparisonPass {
		t.Fatalf("gate %s, want pass", v)
	}
	for _, m := range d.Metrics["b"] {
		gating := m.Name == "rstat_lock_hold_p50_us" || m.Name == "reads_per_sec"
		if m.Watched == gating || m.NotRuledOut && m.Watched || m.WatchedOpen && !m.Watched {
			t.Fatalf("%s: watched %v, not ruled out %v, watched open %v (gating %v)", m.Name, m.Watched, m.NotRuledOut, m.WatchedOpen, gating)
		}
	}

	// Read latency 3.4x in every boot: a watched metric seen worse.
	worse := []compare.Group{
		{Label: "a", Results: secondaryNight(rng, "x", 1000, 150)},
		{Label: "b", Results: secondaryNight(rng, "x", 1000, 503)},
	}
	if d, err = compare.CompareGroups(worse, o); err != nil {
		t.Fatal(err)
	}
	if v, _ := compare.Gate(false, d); v == verdict.ComparisonPass || !strings.Contains(d.Headline(), "read_latency_p50_us") {
		t.Fatalf("gate %s, headline %q: a watched metric seen worse must block the pass and be named", v, d.Headline())
	}

	o.Gating = []string{"no_such_metric"}
	if _, err := compare.CompareGroups(groups, o); err == nil || !strings.Contains(err.Error(), `gating metric "no_such_metric"`) {
		t.Fatalf("unknown gating metric: %v", err)
	}
}

// Package comparetest builds the stored results that tests of
// results/compare and of its renderings (results/format) compare: cells
// with metrics, failures, kernel reports, selftests and host load. It
// builds results, not diffs, so that compare's own tests can use it too
// (a diff is one compare.Compare away).
package comparetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
)

// seedDocument is an agent document whose irqs-off worst section is the
// seed's cgroup_rstat_flush trace.
const seedDocument = `{"irqsoff":{"worst":{"latency_us":45341,"cpu":52,"started_at":"_raw_spin_lock_irq","ended_at":"cgroup_rstat_flush","stack":["memcg1_stat_format","memory_stat_format","memory_stat_show","seq_read_iter"],"holder":"cgroup_rstat_flush"},"windows":[]}}`

// Res is one cell of variant: reads_per_sec (higher is better), hold_us
// (lower is better, also the irqs-off worst section held by holder) and
// an informational ooms.
func Res(variant string, status results.Status, reads, holdUS float64, holder string) *results.Result {
	return &results.Result{Variant: variant, Status: status, IrqsoffHolder: holder, IrqsoffWorstUS: holdUS, Document: []byte(seedDocument),
		Metrics: []agentproto.Metric{
			{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: reads},
			{Name: "hold_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: holdUS},
			{Name: "ooms", Unit: "n", Direction: agentproto.Informational, Value: 3},
		}}
}

// Cells builds n results of a variant with the given status; ok ones get
// reads_per_sec 1000+v and hold_us 10+v for v from vals (cycled).
func Cells(variant string, status results.Status, n int, vals ...float64) []*results.Result {
	var out []*results.Result
	for i := 0; i < n; i++ {
		r := &results.Result{Variant: variant, Status: status}
		if status == results.StatusOK {
			v := vals[i%len(vals)]
			r.Metrics = []agentproto.Metric{
				{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 + v},
				{Name: "hold_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 10 + v},
			}
		}
		out = append(out, r)
	}
	return out
}

// Mixed is n cells of a variant, the first failed of them with status
// (no kernel report: a hang, a boot that never answered), the rest ok.
func Mixed(variant string, status results.Status, failed, n int) []*results.Result {
	out := Cells(variant, status, failed)
	return append(out, Cells(variant, results.StatusOK, n-failed, 1, 2, 3, 4, 5, 6, 7, 8)...)
}

// Unavailable is boots ok cells of base and patched, interleaved (Res's
// figures, growing by 1 a boot), whose agent reported the rstat lock hold
// p50 and p99 unavailable for reason, as on a kernel without the
// tracepoints.
func Unavailable(reason string, boots int) []*results.Result {
	doc := []byte(`{"unavailable":[{"metric":"rstat_lock_hold_p50_us","reason":"` + reason + `"},{"metric":"rstat_lock_hold_p99_us","reason":"` + reason + `"}]}`)
	var rs []*results.Result
	for i := 0; i < boots; i++ {
		for _, v := range []string{"base", "patched"} {
			r := Res(v, results.StatusOK, 100+float64(i), 40+float64(i), "x")
			r.Document = doc
			rs = append(rs, r)
		}
	}
	return rs
}

// WithFinding adds the kernel report f to every cell of rs.
func WithFinding(rs []*results.Result, f results.Finding) []*results.Result {
	for _, r := range rs {
		r.Findings = append(r.Findings, f)
	}
	return rs
}

// SelftestNames are the tests WithSelftests gives outcomes to, in order.
var SelftestNames = []string{"test_core/test_cgcore_populated", "test_cpuset/test_cpuset_perms_object_allow", "test_kmem/(binary)"}

// WithSelftests gives r's selftests the outcomes, one per SelftestNames.
func WithSelftests(r *results.Result, outcomes ...string) *results.Result {
	for i, o := range outcomes {
		bin, name, _ := strings.Cut(SelftestNames[i], "/")
		r.Selftests = append(r.Selftests, agentproto.SelftestResult{Binary: bin, Name: name, Outcome: o})
	}
	return r
}

// GateRuns is four ok cells of stock and of cand, the first two of each
// carrying the given outcomes of WithSelftests' three tests.
func GateRuns(base, cand []string) []*results.Result {
	var rs []*results.Result
	for i := 0; i < 4; i++ {
		b := Res("stock", results.StatusOK, 100, 40, "x")
		c := Res("cand", results.StatusOK, 100, 40, "x")
		if i < 2 {
			WithSelftests(b, base...)
			WithSelftests(c, cand...)
		}
		rs = append(rs, b, c)
	}
	return rs
}

// BootWith is one ok cell of variant whose selftests gave outcome for
// test_freezer/test_cgfreezer_migrate, on a host with the given load
// (nil: not recorded).
func BootWith(variant, outcome string, load *results.HostLoad) *results.Result {
	r := Res(variant, results.StatusOK, 100, 40, "x")
	r.Provenance.HostLoad = load
	r.Selftests = []agentproto.SelftestResult{
		{Binary: "test_freezer", Name: "test_cgfreezer_migrate", Outcome: outcome},
		{Binary: "test_cpu", Name: "test_cpucg_stats", Outcome: agentproto.SelftestPass},
	}
	return r
}

// Busy and Quiet are a host's load around a boot: one with a kernel
// build beside the guest, one with nothing else running.
var (
	Busy  = &results.HostLoad{Load1Start: 5.2, Load1End: 4.1, Cores: 2, OtherQEMU: 1, GuestCPUs: 2}
	Quiet = &results.HostLoad{Load1Start: 0.3, Load1End: 1.9, Cores: 2, GuestCPUs: 2}
)

// NullRun simulates one run in which nothing changed: a baseline and k
// candidates, n cells each, every cell drawing nMetrics metrics from the
// same log-normal distribution (coefficient of variation cv, as measured
// boot to boot under TCG). shift multiplies the first metric of the first
// candidate (1: a true null).
func NullRun(rng *rand.Rand, k, n, nMetrics int, cv, shift float64) []*results.Result {
	sigma := math.Sqrt(math.Log(1 + cv*cv))
	var rs []*results.Result
	for v := 0; v <= k; v++ {
		name := "base"
		if v > 0 {
			name = fmt.Sprintf("cand%d", v)
		}
		for i := 0; i < n; i++ {
			r := &results.Result{Variant: name, Status: results.StatusOK}
			for j := 0; j < nMetrics; j++ {
				x := 1000 * math.Exp(sigma*rng.NormFloat64())
				if v == 1 && j == 0 {
					x *= shift
				}
				r.Metrics = append(r.Metrics, agentproto.Metric{Name: fmt.Sprintf("m%d", j), Unit: "u", Direction: agentproto.LowerIsBetter, Value: x})
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// LoadedHost is boots ok cells of base and of cand, interleaved, every
// guest keeping clock ("host", "icount shift=3", "" as stored before the
// clock was recorded) on a host of cores; base's cells started at host
// load baseLoad, cand's at candLoad (a load below 0: not recorded, as in
// runs stored before it was). cand's rstat_lock_hold_p99_us (us) is
// holdRatio times base's and its irqsoff_rstat_windows_pct (%) pctRatio
// times; reads_per_sec (reads/s) is the same on both sides.
func LoadedHost(clock string, cores int, baseLoad, candLoad, holdRatio, pctRatio float64, boots int) []*results.Result {
	var rs []*results.Result
	for i := 0; i < boots; i++ {
		for _, side := range []struct {
			variant           string
			load, hold, share float64
		}{{"base", baseLoad, 1, 1}, {"cand", candLoad, holdRatio, pctRatio}} {
			wobble := float64(i % 5)
			r := &results.Result{Variant: side.variant, Status: results.StatusOK, Repetition: i,
				Metrics: []agentproto.Metric{
					{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: (70 + wobble) * side.hold},
					{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 1000 + float64((i*3)%7)},
					{Name: "irqsoff_rstat_windows_pct", Unit: "%", Direction: agentproto.LowerIsBetter, Value: (40 + wobble) * side.share},
				}}
			r.Provenance.Clock, r.Provenance.HostCores = clock, cores
			if side.load >= 0 {
				r.Provenance.HostLoad1 = side.load
				r.Provenance.HostLoad = &results.HostLoad{Load1Start: side.load, Load1End: side.load, Cores: cores, GuestCPUs: 2}
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// Sweep is 8 boots each of stock and relock at 2 and 8 vCPUs
// (Provenance.SweepVCPUs): reads_per_sec alike at 2, the candidate at
// half the baseline's at 8, where its lock hold is candHoldAt8 (plus the
// boot's index) against the baseline's 40.
func Sweep(candHoldAt8 float64) []*results.Result {
	var rs []*results.Result
	at := func(n int, r *results.Result) *results.Result {
		r.Provenance.SweepVCPUs = n
		return r
	}
	for i := 0; i < 8; i++ {
		f := float64(i)
		rs = append(rs,
			at(2, Res("stock", results.StatusOK, 1000+f, 40+f, "x")),
			at(2, Res("relock", results.StatusOK, 1000+f, 40+f, "x")),
			at(8, Res("stock", results.StatusOK, 4000+f, 40+f, "x")),
			at(8, Res("relock", results.StatusOK, 2000+f, candHoldAt8+f, "x")))
	}
	return rs
}

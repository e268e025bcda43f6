package nightly

import (
	"context"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// A night whose variant was not measured (every cell infra_error) is an
// infrastructure failure, never a pass: the night's runner refuses such
// cells first (cellFailures), and the judge itself says the same, so a
// night judged on such cells cannot be marked good.
func TestAllInfraNightIsInfraFailure(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	first := n.Run(ctx, "rstat-every-n")
	if first.Outcome != verdict.FirstNight {
		t.Fatalf("night 1: %s", first.Outcome)
	}
	fr.status = results.StatusInfra
	night := n.Run(ctx, "rstat-every-n")
	if night.Outcome != verdict.InfraFailure {
		t.Fatalf("all-infra night: %s %+v", night.Outcome, night.Cases)
	}
	// The judge alone, on those cells.
	base, _ := n.Store.Results(ctx, first.RunIDs[0])
	tonight, _ := n.Store.Results(ctx, night.RunIDs[0])
	res, err := Judge(first.RunIDs[0], base, tonight, compare.Options{Alpha: 0.05, GreyUpper: n.GreyUpper})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != verdict.InfraFailure {
		t.Fatalf("judge: %s %+v", res.Outcome, res.Cases)
	}
	found := false
	for _, c := range res.Cases {
		if c.Variant == "per-cpu-relock" && c.Name == "failure rate" {
			found = c.Status == nightreport.CaseError
		}
	}
	if !found {
		t.Fatalf("no error case for the unmeasured variant: %+v", res.Cases)
	}
}

// A selftest that fails in one boot of tonight (a busy host: a kernel
// build beside the nightly) is not a regression: the night passes, says
// so in a skipped case, and is not marked good, so that a real failure
// is not made tomorrow's baseline outcome. Failing in both boots, it is
// a regression.
func TestSelftestFailingInOneBootIsNotYetARegression(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	selftests := func(fail func(rep int) bool) func(*results.Result) {
		return func(r *results.Result) {
			if r.Repetition > 2 {
				return
			}
			o := agentproto.SelftestPass
			if r.Variant == "per-cpu-relock" && fail(r.Repetition) {
				o = agentproto.SelftestFail
				r.Provenance.HostLoad = &results.HostLoad{Load1Start: 6, Load1End: 5, Cores: 2, OtherQEMU: 2}
			}
			r.Selftests = []agentproto.SelftestResult{{Binary: "test_freezer", Name: "test_cgfreezer_migrate", Outcome: o}}
		}
	}
	fr.edit = selftests(func(int) bool { return false })
	n.Run(ctx, "rstat-every-n")
	fr.edit = selftests(func(rep int) bool { return rep == 1 })
	once := n.Run(ctx, "rstat-every-n")
	if once.Outcome != verdict.NightPass {
		t.Fatalf("one failing boot: %s %+v", once.Outcome, once.Cases)
	}
	found := false
	for _, c := range once.Cases {
		if c.Name == unconfirmedCase && c.Status == nightreport.CaseSkipped && strings.Contains(c.Message, "suspect: host loaded (load 6.0 on 2 cores, 2 other qemu-system)") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no unconfirmed case: %+v", once.Cases)
	}
	if marks, _ := n.Store.Marks(ctx, once.RunIDs[0]); len(marks) != 0 {
		t.Fatalf("a night with an unconfirmed failure was marked %+v", marks)
	}
	fr.edit = selftests(func(int) bool { return true })
	twice := n.Run(ctx, "rstat-every-n")
	if twice.Outcome != verdict.NightRegression {
		t.Fatalf("failing in both boots: %s %+v", twice.Outcome, twice.Cases)
	}
}

// Metrics tonight's kernel cannot produce (a 6.1 tree has no rstat lock
// tracepoints) are a skipped case with the reason, in every output the
// night writes; they do not change the outcome.
func TestUnavailableMetricsAreSaid(t *testing.T) {
	const reason = "unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked"
	mk := func(variant string, i int, unavailable bool) *results.Result {
		r := &results.Result{Variant: variant, Repetition: i, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 100 + float64(i)}}}
		if unavailable {
			r.Document = []byte(`{"unavailable":[{"metric":"rstat_lock_hold_p50_us","reason":"` + reason + `"}]}`)
		}
		return r
	}
	var base, tonight []*results.Result
	for i := 1; i <= 5; i++ {
		base = append(base, mk("stock", i, false))
		tonight = append(tonight, mk("stock", i, true))
	}
	j, err := Judge(1, base, tonight, compare.Options{Alpha: 0.05, GreyUpper: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var said *nightreport.Case
	for i, c := range j.Cases {
		if c.Name == "not measured" {
			said = &j.Cases[i]
		}
	}
	if said == nil || said.Status != nightreport.CaseSkipped || said.Message != reason+": rstat_lock_hold_p50_us" || j.Outcome != verdict.NightPass {
		t.Fatalf("outcome %s, cases %+v: want a skipped 'not measured' case with the reason", j.Outcome, j.Cases)
	}
	var md strings.Builder
	if err := format.WriteNightMarkdown(&md, []*nightreport.Result{{Experiment: "e", Cases: j.Cases}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "not measured: "+reason) {
		t.Errorf("markdown lacks the unavailable metric:\n%s", md.String())
	}
}

package nightly

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// fiveBootNight is a 5+5 night of variant tip: a primary metric
// unchanged and 20 secondaries, one of them (read_latency_p99_us, lower
// is better) scaled by worse tonight. With 20 secondaries in one family
// no 5+5 rank test can reach q < alpha: the secondary is never called.
func fiveBootNight(worse float64) (base, tonight []*results.Result) {
	mk := func(rep int, scale float64) *results.Result {
		spread := 1 + 0.02*float64(rep-3)
		r := &results.Result{Variant: "tip", Repetition: rep, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 40 * spread}}}
		for i := range 19 {
			r.Metrics = append(r.Metrics, agentproto.Metric{Name: fmt.Sprintf("other_%02d_us", i), Unit: "us", Direction: agentproto.LowerIsBetter, Value: 10 * spread})
		}
		r.Metrics = append(r.Metrics, agentproto.Metric{Name: "read_latency_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 * spread * scale})
		return r
	}
	for rep := 1; rep <= 5; rep++ {
		base = append(base, mk(rep, 1))
		tonight = append(tonight, mk(rep, worse))
	}
	return base, tonight
}

// A secondary metric seen to get worse beyond the margin (2x, every boot
// above every baseline boot) fails a 5-boot night, exit 3, and drives its
// bisect; it was UNJUDGED (exit 9), never handed on. One seen worse
// within the margin (1.2x) is still only unjudged.
func TestSeenWorseBeyondMarginFailsTheNight(t *testing.T) {
	opts := compare.Options{Alpha: 0.05, GreyUpper: 0.2, Primary: []string{"rstat_lock_hold_p50_us"}}
	base, tonight := fiveBootNight(2)
	j, err := Judge(1, base, tonight, opts)
	if err != nil {
		t.Fatal(err)
	}
	var c *nightreport.Case
	for i := range j.Cases {
		if j.Cases[i].Name == "read_latency_p99_us" {
			c = &j.Cases[i]
		}
	}
	if j.Outcome != verdict.Regression || c == nil || c.Status != nightreport.CaseFailure || c.Metric == nil || !strings.Contains(c.Message, "seen to get worse beyond its margin") {
		t.Fatalf("2x secondary: outcome %s, case %+v; want a regression failing on read_latency_p99_us", j.Outcome, c)
	}
	if drive, _ := metricDrivers(j.Cases); drive["tip"] != "read_latency_p99_us" {
		t.Fatalf("the bisect is driven by %q, want read_latency_p99_us", drive["tip"])
	}

	base, tonight = fiveBootNight(1.2)
	j, err = Judge(1, base, tonight, opts)
	if err != nil {
		t.Fatal(err)
	}
	if j.Outcome != verdict.Unjudged {
		t.Fatalf("1.2x secondary (within the 1.5x margin): outcome %s, want unjudged: %+v", j.Outcome, j.Cases)
	}
	for _, c := range j.Cases {
		if c.Status == nightreport.CaseFailure {
			t.Fatalf("1.2x secondary failed a case: %+v", c)
		}
	}
}

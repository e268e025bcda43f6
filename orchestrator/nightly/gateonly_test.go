package nightly

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// A gate-only experiment (a user's benchmark at 2+2 boots: shown, not
// judged) still shows its measured metrics in a night's reports, with
// their change against the baseline night, as a skipped case: never a
// pass, never "no significant change", and the night's outcome is
// unchanged. Informational metrics stay out, as in any night.
func TestGateOnlyNightShowsItsMetrics(t *testing.T) {
	mk := func(variant string, i int, ns float64) *results.Result {
		return &results.Result{Variant: variant, Repetition: i, Status: results.StatusOK,
			Metrics: []agentproto.Metric{
				{Name: "fork_ns", Unit: "ns/op", Direction: agentproto.LowerIsBetter, Value: ns},
				{Name: "guest_info", Unit: "n", Direction: agentproto.Informational, Value: 1},
			}}
	}
	var base, tonight []*results.Result
	for i := 1; i <= 2; i++ {
		for _, v := range []string{"a", "b"} {
			base = append(base, mk(v, i, 100))
			tonight = append(tonight, mk(v, i, 110))
		}
	}
	j, err := Judge(1, base, tonight, compare.Options{Alpha: 0.05, GreyUpper: 0.2, GateOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if j.Outcome != verdict.NightPass || len(j.Grey) != 0 {
		t.Fatalf("outcome %s, grey %v: a gate-only night with ok cells passes and measures nothing again", j.Outcome, j.Grey)
	}
	shown := map[string]nightreport.Case{}
	for _, c := range j.Cases {
		if strings.HasPrefix(c.Name, "guest_info") {
			t.Errorf("an informational metric got a case: %+v", c)
		}
		if c.Name == "fork_ns" {
			shown[c.Variant] = c
		}
	}
	for _, v := range []string{"a", "b"} {
		c, ok := shown[v]
		if !ok || c.Status != nightreport.CaseSkipped || !strings.Contains(c.Message, "fork_ns +10.0%") || !strings.Contains(c.Message, "not judged") || strings.Contains(c.Message, "no significant change") {
			t.Fatalf("variant %s: fork_ns case %+v (ok %v): want skipped, its change and 'not judged'", v, c, ok)
		}
	}
	var md, junit strings.Builder
	night := []*nightreport.Result{{Experiment: "e", Outcome: verdict.NightPass, Cases: j.Cases}}
	if err := format.WriteNightMarkdown(&md, night); err != nil {
		t.Fatal(err)
	}
	if err := format.WriteNightJUnit(&junit, night); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**skipped** b fork_ns: fork_ns +10.0%") {
		t.Errorf("markdown lacks fork_ns:\n%s", md.String())
	}
	if !strings.Contains(junit.String(), `name="fork_ns" classname="e.b"`) || !strings.Contains(junit.String(), `<skipped message="fork_ns +10.0%`) {
		t.Errorf("junit lacks fork_ns as a skipped case:\n%s", junit.String())
	}
}

package nightly

import (
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// A night of the same kernel on the host's clock whose host ran at load
// 8 on 2 cores, its baseline night's at 1, with the lock hold 20% longer
// in every boot: the night is UNJUDGED (exit 9), not failed, nothing goes
// to bisect, no further look is spent, and its cases say the load.
func TestNightAtUnlikeHostLoadIsNotFailed(t *testing.T) {
	rs := comparetest.LoadedHost("host", 2, 1, 8, 1.2, 1, 10)
	base, tonight := results.OfVariant(rs, "base"), results.OfVariant(rs, "cand")
	for _, r := range rs {
		r.Variant = "stock"
	}
	j, err := Judge(1, base, tonight, compare.Options{Alpha: 0.05, GreyUpper: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if j.Outcome != verdict.NightUnjudged || j.Outcome.Exit() != verdict.ExitUnjudged {
		t.Fatalf("outcome %s, want unjudged (exit 9)", j.Outcome)
	}
	if slices.Contains(j.Grey, "stock/rstat_lock_hold_p99_us") {
		t.Errorf("the held metric is measured again: grey %v", j.Grey)
	}
	var load, hold *nightreport.Case
	for i, c := range j.Cases {
		switch c.Name {
		case "host load":
			load = &j.Cases[i]
		case "rstat_lock_hold_p99_us":
			hold = &j.Cases[i]
		}
		if c.Status == nightreport.CaseFailure {
			t.Errorf("a failed case: %+v", c)
		}
	}
	if load == nil || load.Status != nightreport.CaseSkipped || !strings.Contains(load.Message, "load 1.0 on 2 cores") || !strings.Contains(load.Message, "at 8.0 on 2") {
		t.Fatalf("host load case %+v", load)
	}
	if hold == nil || hold.Status != nightreport.CaseSkipped || !strings.Contains(hold.Message, "not called a regression: the host's load differed") {
		t.Fatalf("lock hold case %+v", hold)
	}
}

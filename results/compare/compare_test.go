package compare

import (
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

func TestCompareRegressionAndSmallSamples(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		rs = append(rs, comparetest.Res("base", results.StatusOK, 200+float64(i), 1, ""))
		rs = append(rs, comparetest.Res("cand", results.StatusOK, 100+float64(i), 1, ""))
	}
	d, _ := Compare(rs, "base", Options{})
	if got := d.Metrics["cand"][0].Verdict; got != "regression" || len(d.Regressions()) != 1 {
		t.Fatalf("verdict %s, regressions %v", got, d.Regressions())
	}
	small := []*results.Result{comparetest.Res("base", "ok", 1, 1, ""), comparetest.Res("cand", "ok", 2, 1, "")}
	d, _ = Compare(small, "base", Options{})
	m := d.Metrics["cand"][0]
	if m.Verdict != verdict.Unjudged || len(m.Warnings) == 0 {
		t.Fatalf("n=1 must be unjudged (never ~) with a warning: %+v", m)
	}
	if _, err := Compare(small, "missing", Options{}); err == nil {
		t.Fatal("missing baseline accepted")
	}
}

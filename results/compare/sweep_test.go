package compare_test

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/verdict"
)

// sweepResults are a sweep at 2 and 8 vCPUs: at 2 the candidate reads
// as fast as the baseline; at 8 the baseline reads 4x as fast as at 2
// and the candidate only half as fast as the baseline there. Pooled
// over counts the candidate's and the baseline's medians would both sit
// between the counts' and the change would be neither count's.
func sweepResults() []*results.Result {
	return comparetest.Sweep(40)
}

func TestCompareSweepComparesEachCountApart(t *testing.T) {
	counts, diffs, err := compare.CompareSweep(sweepResults(), "stock", compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 2 || counts[0] != 2 || counts[1] != 8 || len(diffs) != 2 {
		t.Fatalf("counts %v, %d diffs: want 2 and 8, a diff each", counts, len(diffs))
	}
	for i, want := range []struct {
		base, cand float64
		n          int
		v          verdict.Change
	}{{1003.5, 1003.5, 8, verdict.NoChange}, {4003.5, 2003.5, 8, verdict.Regression}} {
		m := diffs[i].Metrics["relock"][0]
		if m.Name != "reads_per_sec" || m.Base.Median != want.base || m.Cand.Median != want.cand || m.Base.N != want.n || m.Cand.N != want.n || m.Verdict != want.v {
			t.Errorf("at %d vCPUs: %s base %g cand %g n %d+%d %s, want %g %g n %d %s (the count's own cells)", counts[i], m.Name, m.Base.Median, m.Cand.Median, m.Base.N, m.Cand.N, m.Verdict, want.base, want.cand, want.n, want.v)
		}
		// Every count's primary metrics are one family: reads_per_sec
		// at 2 and at 8 (1 if each count were judged alone).
		if m.Family != 2 {
			t.Errorf("at %d vCPUs: family %d, want 2 (every count's primary metrics judged together)", counts[i], m.Family)
		}
	}
	curves := compare.Curves(counts, diffs)
	if len(curves) == 0 || curves[0].Metric != "reads_per_sec" || len(curves[0].Points) != 2 || curves[0].Points[1].VCPUs != 8 || curves[0].Points[1].Metric.Cand.Median != 2003.5 {
		t.Errorf("curves %+v: want reads_per_sec at 2 and 8 vCPUs, 8's candidate median 2003.5", curves)
	}
}

// A comparison never pools a sweep's counts: not within a variant (run
// 12 compared as one set) nor between a baseline at one count and a
// candidate at another.
func TestCompareRefusesMixedCounts(t *testing.T) {
	_, err := compare.Compare(sweepResults(), "stock", compare.Options{Alpha: 0.05})
	if err == nil || !strings.Contains(err.Error(), "2 and 8 vCPUs") {
		t.Errorf("Compare of a sweep's cells pooled: %v", err)
	}
	var base, cand []*results.Result
	for _, r := range sweepResults() {
		switch {
		case r.Variant == "stock" && r.Provenance.SweepVCPUs == 2:
			base = append(base, r)
		case r.Variant == "relock" && r.Provenance.SweepVCPUs == 8:
			cand = append(cand, r)
		}
	}
	_, err = compare.CompareGroups([]compare.Group{{Label: "stock", Results: base}, {Label: "relock", Results: cand}}, compare.Options{Alpha: 0.05})
	if err == nil || !strings.Contains(err.Error(), "at 8 vCPUs, the baseline at 2") {
		t.Errorf("a candidate at 8 vCPUs compared with a baseline at 2: %v", err)
	}
	// Cells without a sweep compare as ever.
	if _, err := compare.Compare(comparetest.Cells("a", results.StatusOK, 4, 1, 2), "a", compare.Options{}); err == nil || strings.Contains(err.Error(), "vCPU") {
		t.Errorf("a set without a sweep: %v", err)
	}
}

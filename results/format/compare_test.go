package format_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

func TestCompareDirectionsAndPValue(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		rs = append(rs, comparetest.Res("stock", results.StatusOK, 100+float64(i), 40+float64(i), "cgroup_rstat_flush"))
		rs = append(rs, comparetest.Res("relock", results.StatusOK, 120+float64(i), 4+float64(i), "handle_softirqs"))
	}
	rs = append(rs, comparetest.Res("relock", results.StatusCrashed, 0, 0, ""))
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms := d.Metrics["relock"]
	if len(ms) != 3 {
		t.Fatalf("metrics %+v", ms)
	}
	reads, hold, ooms := ms[0], ms[1], ms[2]
	// Complete separation of 6 vs 6: the exact two-sided U-test p-value
	// is 2/C(12,6) = 2/924.
	if math.Abs(reads.P-2.0/924) > 1e-9 {
		t.Fatalf("p = %v, want %v", reads.P, 2.0/924)
	}
	if reads.Verdict != "improvement" || hold.Verdict != "improvement" || ooms.Verdict != "info" {
		t.Fatalf("verdicts %s %s %s", reads.Verdict, hold.Verdict, ooms.Verdict)
	}
	if math.Abs(reads.DeltaPct-(122.5-102.5)/102.5*100) > 1e-9 || reads.Base.N != 6 || reads.Cand.N != 6 {
		t.Fatalf("delta %v n %d/%d", reads.DeltaPct, reads.Base.N, reads.Cand.N)
	}
	if d.Variants[1].Statuses[results.StatusCrashed] != 1 || d.Variants[1].OK != 6 {
		t.Fatalf("statuses %+v", d.Variants[1])
	}
	if d.Variants[0].WorstHolders[0].Name != "cgroup_rstat_flush" || d.Variants[0].WorstHolders[0].Share != 1 {
		t.Fatalf("holders %+v", d.Variants[0].WorstHolders)
	}
	var b strings.Builder
	format.WriteDiff(&b, d, format.Table)
	if len(d.Variants[0].WorstSections) != 1 || d.Variants[0].WorstSections[0].Count != 6 {
		t.Fatalf("worst sections %+v", d.Variants[0].WorstSections)
	}
	for _, want := range []string{"relock vs stock", "reads_per_sec", "improvement", "1 crashed, 6 ok", "cgroup_rstat_flush 100%",
		"_raw_spin_lock_irq -> cgroup_rstat_flush | memcg1_stat_format < memory_stat_format < memory_stat_show"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestWriteSummary(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		rs = append(rs, comparetest.Res("local-lock", results.StatusOK, 100+float64(i), 5, "handle_softirqs"))
	}
	var b strings.Builder
	format.WriteSetSummary(&b, "local-lock", compare.SummarizeSet(rs, compare.Options{}))
	for _, want := range []string{"local-lock: 6 ok", "reads_per_sec (reads/s)", "102 [100, 105]", "handle_softirqs 100%"} {
		if !strings.Contains(b.String(), want) {
			t.Fatalf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

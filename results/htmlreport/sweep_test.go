package htmlreport

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
)

// A sweep's page opens with a line chart per judged and informational
// metric: a line per set through its medians at each count, whiskers
// for the intervals, then each count's own comparison.
func TestRenderSweep(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for _, n := range []int{2, 8, 16} {
			f, k := float64(i), float64(n)
			b := comparetest.Res("stock", results.StatusOK, 1000*k+f, 40*k+f, "x")
			c := comparetest.Res("relock", results.StatusOK, 1000*k+f, 10*k+f, "x")
			b.Provenance.SweepVCPUs, c.Provenance.SweepVCPUs = n, n
			rs = append(rs, b, c)
		}
	}
	counts, diffs, err := compare.CompareSweep(rs, "stock", compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := compare.BySweep(rs)
	var ins []Input
	for i, d := range diffs {
		ins = append(ins, Input{Title: "run 4 at " + []string{"2", "8", "16"}[i] + " vCPUs", Diff: d, Groups: []compare.Group{{Label: "stock", Results: results.OfVariant(blocks[i], "stock")}, {Label: "relock", Results: results.OfVariant(blocks[i], "relock")}}})
	}
	var b bytes.Buffer
	if err := RenderSweep(&b, "kregress run 4: rstat, vCPU sweep", counts, ins); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	testfile.Golden(t, filepath.Join("testdata", "sweep.html"), page)
	charts := page[:strings.Index(page, `<ul class="parts">`)]
	// reads_per_sec, hold_us and ooms: three charts of two lines each.
	if n := strings.Count(charts, "<polyline"); n != 6 {
		t.Errorf("%d lines in the charts, want 6 (3 metrics x 2 sets)", n)
	}
	for _, want := range []string{"hold_us (us), lower is better, against vCPUs", ">16</text>", "relock at 16 vCPUs: 162", "stock at 8 vCPUs: 322"} {
		if !strings.Contains(charts, want) {
			t.Errorf("charts lack %q", want)
		}
	}
	if strings.Count(page, `<section id="part-`) != 3 {
		t.Error("not a section per count")
	}
	if err := RenderSweep(&b, "x", counts[:2], ins); err == nil {
		t.Error("a count per part is not checked")
	}
}

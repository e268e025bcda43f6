package compare

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
)

// Crashed cells' panics are findings too, and the crash counts twice
// over: as a failure rate and as a new report naming it.
func TestPanicsInCrashedCells(t *testing.T) {
	var rs []*results.Result
	rs = append(rs, comparetest.Cells("base", results.StatusOK, 4, 1, 2, 3, 4)...)
	rs = append(rs, comparetest.Cells("fine", results.StatusOK, 4, 1, 2, 3, 4)...)
	rs = append(rs, comparetest.WithFinding(comparetest.Cells("panics", results.StatusCrashed, 4), results.Finding{Kind: results.FindingPanic, Title: "kernel panic: Fatal exception", Count: 1})...)
	d, err := Compare(rs, "base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	fail := strings.Join(d.Failing(), "\n")
	if !strings.Contains(fail, "panics: ") || !strings.Contains(fail, "new kernel report: kernel panic: Fatal exception (4 of 4 cells") || strings.Contains(fail, "fine") {
		t.Fatalf("failing:\n%s", fail)
	}
}

package format

import (
	"testing"

	"github.com/kregress/kregress/results"
)

// An even count of cells shows the upper of the two middle times, a time
// one cell recorded, as results show always has.
func TestMedianPhasesEvenCount(t *testing.T) {
	var cells []*results.Result
	for _, s := range []float64{2, 1} {
		c := &results.Result{}
		c.Provenance.Phases = []results.Phase{{Name: "kernel", Seconds: s}, {Name: "agent", Seconds: 3 * s}}
		cells = append(cells, c)
	}
	if got, want := medianPhases(cells), "kernel 2.00, agent 6.00"; got != want {
		t.Errorf("medianPhases = %q, want %q", got, want)
	}
}

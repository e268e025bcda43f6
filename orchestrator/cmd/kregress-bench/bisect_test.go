package main

import (
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
)

// The bench's counting wrapper must take the revert's point as the
// pipeline prober does, or the bisect's confirmation fails the bench.
func TestCountingProberTakesTheRevertPoint(t *testing.T) {
	var p bisect.Prober = &countingProber{Prober: &bisect.PipelineProber{Points: map[string]bisect.Point{}}}
	adder, ok := p.(interface{ AddPoint(string, bisect.Point) })
	if !ok {
		t.Fatal("countingProber cannot take a point: confirmation by revert would fail")
	}
	adder.AddPoint("revert", bisect.Point{})
	if _, ok := p.(*countingProber).Prober.(*bisect.PipelineProber).Points["revert"]; !ok {
		t.Fatal("the point did not reach the pipeline prober")
	}
}

package nightly

import (
	"context"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// crashOnce makes the last cell of per-cpu-relock in each run crash with
// a panic titled title ("" leaves every cell ok).
func crashOnce(fr *fakeRunner, title string) {
	fr.edit = func(r *results.Result) {
		if title == "" || r.Variant != "per-cpu-relock" || r.Repetition != 8 {
			return
		}
		r.Status, r.Metrics = results.StatusCrashed, nil
		r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: title, Count: 1}}
	}
}

// crashCases are a night's failing failure-rate and kernel-report cases.
func crashCases(res *nightreport.Result) []nightreport.Case {
	var out []nightreport.Case
	for _, c := range res.Cases {
		if c.Status == nightreport.CaseFailure && c.Kind.Crash() {
			out = append(out, c)
		}
	}
	return out
}

// Defect: a flaky panic title that good nights printed failed every
// night it appeared in (a crashed cell, and a new signature whenever the
// baseline night missed it).
// The titles of the good nights before tonight are judged as a rate; a
// title none of them printed still fails the night on one cell.
func TestNightKnowsItsFlakyTitles(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	exp := "rstat-every-n"
	const flaky = "general protection fault in flaky_driver_poll"

	// Night 1 crashes with the flaky title: with no history that fails
	// the night, and a person who knows the flake accepts it.
	crashOnce(fr, flaky)
	first := n.Run(ctx, exp)
	if first.Outcome != verdict.KernelFailure {
		t.Fatalf("night 1: %s %s", first.Outcome, first.Error)
	}
	for _, id := range first.RunIDs {
		n.Store.AddMark(ctx, &results.Mark{RunID: id, Kind: results.MarkAccepted, Who: "ana", Reason: "flaky_driver_poll is a known flake"})
	}
	crashOnce(fr, "")
	if r := n.Run(ctx, exp); r.Outcome != verdict.NightPass {
		t.Fatalf("night 2 (the baseline, no crash): %s %+v", r.Outcome, r.Cases)
	}
	crashOnce(fr, flaky)
	r := n.Run(ctx, exp)
	if r.Outcome != verdict.NightPass || len(crashCases(r)) != 0 {
		t.Fatalf("night 3, the flaky title night 1 printed, in 1 of 8 cells: %s %+v", r.Outcome, crashCases(r))
	}
	crashOnce(fr, "kernel BUG at mm/slub.c:new")
	r = n.Run(ctx, exp)
	if r.Outcome != verdict.KernelFailure {
		t.Fatalf("night 4, a title no good night printed: %s %+v", r.Outcome, r.Cases)
	}
}

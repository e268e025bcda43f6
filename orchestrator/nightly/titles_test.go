package nightly

import (
	"context"
	"strings"
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
// The titles of the good nights before tonight are judged as a rate: a
// title is a flake while tonight's count is within its rate in the good
// history, one none of them printed included, and fails the night above
// it; with no good night yet any title fails it.
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
	if r := n.Run(ctx, exp); r.Outcome != verdict.Pass {
		t.Fatalf("night 2 (the baseline, no crash): %s %+v", r.Outcome, r.Cases)
	}
	crashOnce(fr, flaky)
	r := n.Run(ctx, exp)
	if r.Outcome != verdict.Pass || len(crashCases(r)) != 0 {
		t.Fatalf("night 3, the flaky title night 1 printed, in 1 of 8 cells: %s %+v", r.Outcome, crashCases(r))
	}
	// A title no good night printed, in one boot of each of tonight's
	// looks of 16, after three good nights of 16: likely enough by chance
	// (Fisher p about 0.16), a flake learned from its rate, said in the
	// notes.
	const rare = "kernel BUG at mm/slub.c:new"
	crashOnce(fr, rare)
	r = n.Run(ctx, exp)
	if r.Outcome != verdict.Pass || !strings.Contains(strings.Join(r.Notes, "\n"), `kernel report "`+rare+`" in `) || !strings.Contains(strings.Join(r.Notes, "\n"), "a flake") {
		t.Fatalf("night 4, a title no good night printed, in 1 of 16 boots: %s %+v %q", r.Outcome, r.Cases, r.Notes)
	}
	// A title in every boot of a variant is above any rate the history
	// allows: it fails the night, and says why.
	fr.edit = func(r *results.Result) {
		if r.Variant == "per-cpu-relock" {
			r.Status, r.Metrics = results.StatusCrashed, nil
			r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: "BUG: unable to handle page fault in rstat_flush", Count: 1}}
		}
	}
	r = n.Run(ctx, exp)
	if r.Outcome != verdict.KernelFailure || !strings.Contains(r.Error, "above its rate in the good history") {
		t.Fatalf("night 5, a title in every per-cpu-relock boot: %s %s", r.Outcome, r.Error)
	}
}

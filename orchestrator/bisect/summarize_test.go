package bisect

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/format"
)

// writeReport is the bisect's text report as the CLI prints it: the
// state summarized, rendered by results/format.
func writeReport(w io.Writer, id int64, spec *Spec, res *Result, err error) {
	format.WriteBisectSummary(w, Summarize(id, spec, res, err))
}

// TestWriteReportGolden: the bisect's text report, byte for byte, for a
// metric culprit confirmed by revert, a crash culprit, a series left
// inconclusive, one that does not reproduce, one stopped, one not
// finished and one stopped before its endpoints.
func TestWriteReportGolden(t *testing.T) {
	names := []string{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccccccccccccccccccc", "dddddddddddddddddddddddddddddddddddddddd"}
	spec := &Spec{Experiment: "rstat", GitTree: "/src/linux", Metric: "hold_p50_us", Good: "v1", Bad: "v2", Names: names,
		Titles: map[string]string{names[0]: "(good) v1", names[1]: "mm: one (A <a@b>)", names[2]: "mm: two (B <b@c>)", names[3]: "mm: three (C <c@d>)"}}
	steps := []Step{
		{Commit: names[3], Index: -1, Verdict: Bad, Why: "endpoints", GoodSamples: []float64{10, 10.1, 9.9}, BadSamples: []float64{12.5, 12.4}},
		{Commit: names[1], Index: 1, Verdict: Good, Why: "like good", Median: 10.05, N: 4, RunIDs: []int64{3, 4}, GoodSamples: []float64{10}, BadSamples: []float64{12.6}},
		{Commit: names[2], Index: 2, Verdict: Bad, Why: "like bad", Median: 12.45, N: 4, RunIDs: []int64{5},
			Test: &Comparison{Outcome: Different, LLR: 3.1, Upper: 2.9, Lower: -2.9, Position: 0.98, PGood: 0.001, PBad: 0.6}},
		{Commit: names[3], Index: 3, Verdict: Skip, Why: "does not build"},
	}
	culprit := &Result{Culprit: names[2], Reproduced: true, Endpoints: Step{Median: 10, PBad: 0.0012}, BadMedian: 12.5, Steps: steps,
		Speculation: &SpeculationStats{Levels: 1, Started: 3, Used: 2, Wasted: []string{names[3]}, WaitedSeconds: 41},
		Confidence:  0.95, Measured: 2, Confirmation: &Confirmation{Outcome: bisectreport.Confirmed, Revert: "eeeeeeeeeeee (culprit reverted)", Why: "like good",
			Step: &Step{Median: 10.02, N: 4, RunIDs: []int64{7}}}}
	crashSpec := *spec
	crashSpec.Crash, crashSpec.Metric = true, "kernel failures"
	crash := &Result{Culprit: names[2], Reproduced: true, Endpoints: Step{N: 8, GoodCrashes: 0, BadCrashes: 3}, CrashRate: &Rate{Failed: 3, Boots: 8},
		Steps:      []Step{{Commit: names[3], Index: -1, Verdict: Bad, Looks: []Look{{BadBoots: 8, GoodBoots: 8}}}, {Commit: names[2], Index: 2, Verdict: Bad, Crashes: 2, N: 4}},
		Confidence: 0.9, ConfidenceWhy: "1 - the misses of the steps called good", Measured: 1}
	series := *spec
	series.Series, series.Names = true, []string{"0/2", "1/2", "2/2"}
	series.Titles = map[string]string{"0/2": "(good) v1", "1/2": "one (A <a@b>)", "2/2": "two (B <b@c>)"}
	var b bytes.Buffer
	writeReport(&b, 4, spec, culprit, nil)
	writeReport(&b, 5, &crashSpec, crash, nil)
	writeReport(&b, 6, &series, &Result{Reproduced: true, Range: []string{"1/2", "2/2"}, Steps: []Step{{Commit: "1/2", Index: 1, Verdict: Skip, Why: "does not build"}}}, nil)
	writeReport(&b, 7, spec, &Result{Endpoints: Step{Median: 10, PBad: 0.4}, BadMedian: 10.1}, ErrNotReproduced)
	writeReport(&b, 8, spec, &Result{Reproduced: true, Steps: steps[:2]}, errors.New("interrupted"))
	writeReport(&b, 9, spec, &Result{Reproduced: true, Steps: steps[:2], Measured: 1}, nil)
	writeReport(&b, 10, spec, nil, errors.New("--good does not build"))
	testfile.Golden(t, filepath.Join("testdata", "writereport.golden"), b.String())
}

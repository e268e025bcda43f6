package format_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

// sweepParts are a sweep at 2 and 8 vCPUs compared count by count: at 2
// the candidate reads as fast as the baseline, at 8 half as fast.
func sweepParts(t *testing.T) ([]int, []format.DiffPart) {
	t.Helper()
	rs := comparetest.Sweep(20)
	counts, diffs, err := compare.CompareSweep(rs, "stock", compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}})
	if err != nil {
		t.Fatal(err)
	}
	var parts []format.DiffPart
	for i, d := range diffs {
		parts = append(parts, format.DiffPart{Title: "run 3: rstat at " + []string{"2", "8"}[i] + " vCPUs", Diff: d, Notes: []string{"run 3 (note)"}})
	}
	return counts, parts
}

// A sweep's diff in every format: each count's comparison, then each
// metric against the counts, each count's figures its own.
func TestSweepGolden(t *testing.T) {
	counts, parts := sweepParts(t)
	for _, f := range format.DiffFormats {
		var b bytes.Buffer
		if err := format.WriteSweepDiff(&b, f, "run 3: rstat, vCPU sweep", counts, parts); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		testfile.Golden(t, filepath.Join("testdata", "golden", "sweep."+string(f)), b.String())
	}
}

// The curves' rows carry each count's own medians and verdict: the
// table's rows for reads_per_sec are 2 (no change, both 1004) and 8 (a
// regression, 4004 vs 2004), and no row pools the counts.
func TestSweepTableRowsPerCount(t *testing.T) {
	counts, parts := sweepParts(t)
	var b bytes.Buffer
	if err := format.WriteSweepDiff(&b, format.Table, "run 3: rstat, vCPU sweep", counts, parts); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	i := strings.Index(out, "== run 3: rstat, vCPU sweep: "+format.SweepHeading)
	if i < 0 {
		t.Fatalf("no curves section:\n%s", out)
	}
	curves := out[i:]
	var rows []string
	for _, l := range strings.Split(curves[strings.Index(curves, "reads_per_sec"):], "\n")[2:4] {
		rows = append(rows, strings.Join(strings.Fields(l), " "))
	}
	if !strings.HasPrefix(rows[0], "2 1004 [1000, 1006] 1004 [1000, 1006] +0.0%") || !strings.HasSuffix(rows[0], "~") ||
		!strings.HasPrefix(rows[1], "8 4004 [4000, 4006] 2004 [2000, 2006] -50.0%") || !strings.HasSuffix(rows[1], "regression") {
		t.Errorf("reads_per_sec rows %q, want 2: ~ at 1004 and 8: a regression from 4004 to 2004", rows)
	}
	if err := format.WriteSweepDiff(&b, format.Table, "x", counts[:1], parts); err == nil {
		t.Error("a count per part is not checked")
	}
}

// The dry run names the sweep and its cells: counts x variants x
// repetitions; without a sweep its first line is as it was.
func TestSelectionSweep(t *testing.T) {
	s := format.Selection{Experiment: "e", Family: "f", Workload: "rstat", Repetitions: 5, CPUs: 2,
		Variants: []format.SelectedVariant{{Name: "stock", Baseline: true}, {Name: "relock"}}}
	var plain bytes.Buffer
	format.WriteSelection(&plain, s)
	if !strings.HasPrefix(plain.String(), "experiment e: family f, workload rstat, 5 repetition(s) per variant, 2 vCPUs\n\n") || strings.Contains(plain.String(), "sweep") {
		t.Errorf("without a sweep:\n%s", plain.String())
	}
	s.CPUsSweep = []int{2, 8, 16}
	var b bytes.Buffer
	format.WriteSelection(&b, s)
	if !strings.Contains(b.String(), "vCPU sweep 2, 8, 16\nsweep: 3 vCPU counts x 2 variants x 5 repetitions = 30 cells") {
		t.Errorf("sweep:\n%s", b.String())
	}
}

// The sweep's counts in a sentence and as the flag takes them back.
func TestSweepCountsAndFlag(t *testing.T) {
	if got := format.SweepCounts([]int{2, 8, 16}); got != "2, 8, 16" {
		t.Errorf("SweepCounts: %q", got)
	}
	if got := format.SweepFlag([]int{2, 8, 16}); got != "2,8,16" {
		t.Errorf("SweepFlag: %q, want no spaces (--vm.cpus-sweep splits on commas only)", got)
	}
}

package bisect

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenReports are culprit reports of every outcome: a confirmed
// culprit from a night, a refuted series patch, a crash culprit not yet
// confirmed, an unsure one, one that does not reproduce, one left
// inconclusive, and one that stopped.
func goldenReports() []*CulpritReport {
	kernel := KernelConfig{BaseConfig: "defconfig", ConfigSHA256: "c0ffeec0ffeec0ffeec0ffee", Preemption: "PREEMPT_DYNAMIC", Compiler: "gcc 13.2", Accel: "kvm", VCPUs: 4}
	change := &compare.Change{Name: "hold_p50_us", Base: 10, Cand: 12.5, DeltaPct: 25, P: 0.00123, Q: 0.00123, N1: 8, N2: 9, MDEPct: 4.25}
	culprit := &Commit{ID: "3333333333333333333333333333333333333333", Subject: "cgroup: slow <path> & more", Author: "Ann Author <ann@example.org>",
		Date: "2026-03-01T10:00:00+01:00", Describe: "v6.9-rc1-3-g333333333333"}
	repro := []string{"kregress bisect -c rstat --kernel.git-tree /src/linux --good v1 --bad v2 --metric hold_p50_us", "kregress bisect show 4"}
	step := &Step{Commit: "revert", Index: 9, Verdict: Good, Why: "like good", Median: 10.1, N: 6, PGood: 0.4, PBad: 0.001, RunIDs: []int64{20, 21},
		Test: &Comparison{Outcome: Same, LLR: -3.2, Upper: 2.9, Lower: -2.9, Position: 0.05, PGood: 0.4, PBad: 0.001}}
	return []*CulpritReport{
		{BisectID: 4, Outcome: verdict.Culprit, Experiment: "rstat", Variant: "relock", Metric: "hold_p50_us", Good: "v1", Bad: "v2", Commits: 12,
			Change: change, Night: &Origin{Experiment: "rstat", NightRunIDs: []int64{9, 10}, BaselineRunID: 5, Regression: "relock hold_p50_us: +25.0%", Change: change},
			Culprit: culprit, Confidence: 0.9512, Confirmation: &Confirmation{Outcome: Confirmed, Revert: "revert of 333333333333 on v2", Why: "with it reverted the bad endpoint is like good", Step: step},
			Boots: 64, Steps: 5, Kernel: kernel, Reproduce: repro},
		{BisectID: 5, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "hold_p50_us", Good: "v1", Bad: "series/", Commits: 1, Series: true,
			Culprit: &Commit{ID: "1/1", Subject: "mm: one", Author: "Bo <bo@example.org>"}, Confidence: 0.9,
			Confirmation: &Confirmation{Outcome: Refuted, Why: "with it reverted the bad endpoint is still like bad"}, Boots: 10, Steps: 1, Kernel: KernelConfig{}, Reproduce: repro},
		{BisectID: 6, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "kernel failures", Crash: true, CrashRate: "3 of 8 boots", Good: "v1", Bad: "v2", Commits: 2,
			Culprit: &Commit{ID: "4444444444444444444444444444444444444444", Subject: "x", Author: "C <c@d>"}, Confidence: 0.8, Boots: 30, Steps: 2, Kernel: kernel, Reproduce: repro},
		{BisectID: 7, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Commits: 3, Change: change,
			Culprit: &Commit{ID: "5555555555555555555555555555555555555555", Subject: "y", Author: "D <d@e>"}, Confidence: 0.7,
			Confirmation: &Confirmation{Outcome: RevertConflict, Why: "reverting it does not apply"}, Boots: 12, Steps: 3, Kernel: kernel, Reproduce: repro},
		{BisectID: 8, Outcome: verdict.NotReproduced, Experiment: "rstat", Variant: "v", Metric: "m", Good: "v1", Bad: "v2", Commits: 1, Boots: 8, Kernel: kernel, Reproduce: repro},
		{BisectID: 9, Outcome: verdict.Inconclusive, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "series/", Series: true, Commits: 3,
			Candidates: []string{"2/3", "3/3"}, Boots: 20, Steps: 3, Kernel: kernel, Reproduce: repro},
		{BisectID: 10, Outcome: verdict.Stopped, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Commits: 40, Error: "interrupted", Kernel: kernel, Reproduce: repro},
	}
}

// TestCulpritGolden: each format of each outcome, byte for byte.
func TestCulpritGolden(t *testing.T) {
	for name, write := range map[string]func(r *CulpritReport, b *bytes.Buffer) error{
		"culprit.md.golden":    func(r *CulpritReport, b *bytes.Buffer) error { return r.WriteMarkdown(b) },
		"culprit.json.golden":  func(r *CulpritReport, b *bytes.Buffer) error { return r.WriteJSON(b) },
		"culprit.junit.golden": func(r *CulpritReport, b *bytes.Buffer) error { return r.WriteJUnit(b) },
		"culprit.mail.golden":  func(r *CulpritReport, b *bytes.Buffer) error { return r.WriteMail(b) },
	} {
		var b bytes.Buffer
		for _, r := range goldenReports() {
			if err := write(r, &b); err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n----\n")
		}
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s changed:\n%s", name, b.Bytes())
		}
	}
}

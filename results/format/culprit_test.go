package format

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// goldenReports are culprit reports of every outcome: a confirmed
// culprit from a night, a refuted series patch, a crash culprit not yet
// confirmed, an unsure one, one that does not reproduce, one left
// inconclusive, and one that stopped.
func goldenReports() []*bisectreport.Report {
	kernel := bisectreport.KernelConfig{BaseConfig: "defconfig", ConfigSHA256: "c0ffeec0ffeec0ffeec0ffee", Preemption: "PREEMPT_DYNAMIC", Compiler: "gcc 13.2", Accel: "kvm", VCPUs: 4}
	change := &compare.Change{Name: "hold_p50_us", Base: 10, Cand: 12.5, DeltaPct: 25, P: 0.00123, Q: 0.00123, N1: 8, N2: 9, MDEPct: 4.25}
	culprit := &bisectreport.Commit{ID: "3333333333333333333333333333333333333333", Subject: "cgroup: slow <path> & more", Author: "Ann Author <ann@example.org>",
		Date: "2026-03-01T10:00:00+01:00", Describe: "v6.9-rc1-3-g333333333333"}
	repro := []string{"kregress bisect -c rstat --kernel.git-tree /src/linux --good v1 --bad v2 --metric hold_p50_us", "kregress bisect show 4"}
	// The revert's step as the bisect passes it on (bisect's
	// TestConfirmationReport makes it so).
	step := json.RawMessage(`{"commit":"revert","index":9,"verdict":"good","why":"like good","median":10.1,"n":6,"p_good":0.4,"p_bad":0.001,"run_ids":[20,21],"test":{"outcome":"same","llr":-3.2,"upper":2.9,"lower":-2.9,"position":0.05,"p_good":0.4,"p_bad":0.001}}`)
	return []*bisectreport.Report{
		{BisectID: 4, Outcome: verdict.Culprit, Experiment: "rstat", Variant: "relock", Metric: "hold_p50_us", Good: "v1", Bad: "v2", Commits: 12,
			Change: change, Night: &bisectreport.Origin{Experiment: "rstat", NightRunIDs: []int64{9, 10}, BaselineRunID: 5, Regression: "relock hold_p50_us: +25.0%", Change: change},
			Culprit: culprit, Confidence: 0.9512, Confirmation: &bisectreport.Confirmation{Outcome: bisectreport.Confirmed, Revert: "revert of 333333333333 on v2", Why: "with it reverted the bad endpoint is like good", Step: step},
			Boots: 64, Steps: 5, Kernel: kernel, Reproduce: repro},
		{BisectID: 5, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "hold_p50_us", Good: "v1", Bad: "series/", Commits: 1, Series: true,
			Culprit: &bisectreport.Commit{ID: "1/1", Subject: "mm: one", Author: "Bo <bo@example.org>"}, Confidence: 0.9,
			Confirmation: &bisectreport.Confirmation{Outcome: bisectreport.Refuted, Why: "with it reverted the bad endpoint is still like bad"}, Boots: 10, Steps: 1, Kernel: bisectreport.KernelConfig{}, Reproduce: repro},
		{BisectID: 6, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "kernel failures", Crash: true, CrashRate: "3 of 8 boots", Good: "v1", Bad: "v2", Commits: 2,
			Culprit: &bisectreport.Commit{ID: "4444444444444444444444444444444444444444", Subject: "x", Author: "C <c@d>"}, Confidence: 0.8, Boots: 30, Steps: 2, Kernel: kernel, Reproduce: repro},
		{BisectID: 7, Outcome: verdict.Culprit, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Commits: 3, Change: change,
			Culprit: &bisectreport.Commit{ID: "5555555555555555555555555555555555555555", Subject: "y", Author: "D <d@e>"}, Confidence: 0.7,
			Confirmation: &bisectreport.Confirmation{Outcome: bisectreport.RevertConflict, Why: "reverting it does not apply"}, Boots: 12, Steps: 3, Kernel: kernel, Reproduce: repro},
		{BisectID: 8, Outcome: verdict.NotReproduced, Experiment: "rstat", Variant: "v", Metric: "m", Good: "v1", Bad: "v2", Commits: 1, Boots: 8, Kernel: kernel, Reproduce: repro},
		{BisectID: 9, Outcome: verdict.Inconclusive, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "series/", Series: true, Commits: 3,
			Candidates: []string{"2/3", "3/3"}, Boots: 20, Steps: 3, Kernel: kernel, Reproduce: repro},
		{BisectID: 10, Outcome: verdict.Stopped, Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Commits: 40, Error: "interrupted", Kernel: kernel, Reproduce: repro},
	}
}

// TestCulpritGolden: each format of each outcome, byte for byte.
func TestCulpritGolden(t *testing.T) {
	for name, f := range map[string]CulpritFormat{
		"culprit.md.golden": CulpritMarkdown, "culprit.json.golden": CulpritJSON,
		"culprit.junit.golden": CulpritJUnit, "culprit.mail.golden": CulpritMail,
	} {
		var b bytes.Buffer
		for _, r := range goldenReports() {
			if err := WriteCulprit(&b, f, r); err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n----\n")
		}
		testfile.Golden(t, filepath.Join("testdata", name), b.String())
	}
}

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// TestKernelReportsFailTheVerdict boots, for real, two candidates whose
// numbers alone would not fail anything: one WARNs (once per boot) when
// memory.stat is read, one panics there. The run must exit 3, name the
// WARNING by its title (found in dmesg: the rstat workload keeps it off
// the console), count the panicking candidate's crashes and still judge
// the other candidate.
func TestKernelReportsFailTheVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	resultsDir := t.TempDir()
	dir := t.TempDir()
	testdata, _ := filepath.Abs("testdata")
	exp := filepath.Join(dir, "reports.yaml")
	os.WriteFile(exp, []byte(`experiment: e2e-reports
family: reports
families:
  reports:
    workload: rstat
    baseline: base
    variants:
      base: {}
      warn: {patches: [`+filepath.Join(testdata, "warn-memory-stat.patch")+`]}
      panics: {patches: [`+filepath.Join(testdata, "panic-memory-stat.patch")+`]}
`+strings.Replace(userChangeWorkload, "repetitions: 1\n", "repetitions: 2\n", 1)), 0o644)
	code, out := runKregress(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", exp, "--fail-on-regression")
	logAfter(t, "kregress run:\n%s", out)
	if code != 3 {
		t.Fatalf("want exit 3 (regression), got %d", code)
	}
	for _, want := range []string{
		"warn                 NEW: WARNING in memory_stat_show (2 of 2 cells; baseline 0 of 2)",
		"kregress e2e: a warning in memory_stat_show",
		"panics: fails in 2 of 2 cells where the baseline never failed",
		"panics: new kernel report: kernel panic: kregress e2e: memory.stat read",
		"warn vs base",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	store := storetest.SQLiteIn(t, resultsDir)
	ctx := context.Background()
	run := latestRun(t, store, "e2e-reports")
	rs, _ := store.Results(ctx, run.ID)
	for _, r := range rs {
		titles := []string{}
		for _, f := range r.Findings {
			titles = append(titles, f.Title)
		}
		t.Logf("%s rep %d: %s, reports %q", r.Variant, r.Repetition, r.Status, titles)
		switch r.Variant {
		case "base":
			if r.Status != results.StatusOK || len(r.Findings) != 0 {
				t.Errorf("base: %s with reports %q", r.Status, titles)
			}
		case "warn":
			if r.Status != results.StatusOK || len(r.Findings) != 1 || r.Findings[0].Kind != results.FindingWarning || !strings.Contains(r.Findings[0].Excerpt, "memory_stat_show") {
				t.Errorf("warn: %s with reports %+v", r.Status, r.Findings)
			}
			if _, err := os.Stat(filepath.Join(r.ArtifactDir, "dmesg.txt")); err != nil {
				t.Errorf("warn: no dmesg.txt artifact: %v", err)
			}
		case "panics":
			if r.Status != results.StatusCrashed || len(titles) == 0 || titles[len(titles)-1] != "kernel panic: kregress e2e: memory.stat read" {
				t.Errorf("panics: %s with reports %q", r.Status, titles)
			}
		}
	}
}

// TestCrashInSomeRepetitions: a candidate that panics in one repetition
// of three (when the selftests, run in the first repetition only, write
// memory.peak) and measures fine in the others is a regression, exit 3,
// though most of its cells are ok and its figures alone would pass.
func TestCrashInSomeRepetitions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	resultsDir := t.TempDir()
	testdata, _ := filepath.Abs("testdata")
	exp := filepath.Join(t.TempDir(), "some.yaml")
	workload := strings.Replace(userChangeWorkload, "repetitions: 1\n", "repetitions: 3\n", 1)
	workload = strings.Replace(workload, "selftests:\n  repetitions: 0\n", "selftests:\n  repetitions: 1\n  binaries: [test_memcontrol]\n", 1)
	os.WriteFile(exp, []byte(`experiment: e2e-some-reps
family: flaky
families:
  flaky:
    workload: rstat
    baseline: base
    variants:
      base: {}
      peak-panics: {patches: [`+filepath.Join(testdata, "panic-memory-peak-write.patch")+`]}
`+workload), 0o644)
	code, out := runKregress(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", exp, "--fail-on-regression")
	logAfter(t, "kregress run:\n%s", out)
	if code != 3 {
		t.Fatalf("want exit 3 (regression), got %d", code)
	}
	if !strings.Contains(out, "peak-panics: fails in 1 of 3 cells where the baseline never failed") {
		t.Error("the verdict does not count the one crash of three")
	}
	store := storetest.SQLiteIn(t, resultsDir)
	run := latestRun(t, store, "e2e-some-reps")
	rs, _ := store.Results(context.Background(), run.ID)
	var got []string
	for _, r := range rs {
		if r.Variant == "peak-panics" {
			got = append(got, string(r.Status))
		}
	}
	if strings.Join(got, ",") != "crashed,ok,ok" {
		t.Fatalf("peak-panics cells %v, want crashed then ok, ok", got)
	}
}

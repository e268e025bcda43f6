package main

import (
	"bytes"
	"sync"

	"github.com/spf13/cobra"

	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// kregressBin is the built binary, for the few tests that need a
// process of their own (umask, stdout and stderr apart, a held lock);
// binary builds it once, on first use. Every other test runs the
// command tree in-process (kregress, execute).
var (
	kregressBin string
	buildOnce   sync.Once
	buildErr    error
	testTempDir string
)

// sharedDryRunCache is one cache directory for the dry runs of built-in
// experiments: each dry run of the Debian source unpacks the 6.12 tarball
// (1-2 minutes of CPU) into its cache, so the tests share one unpacked
// tree (the source cache locks itself) instead of unpacking it per call.
var sharedDryRunCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kregress-cli-")
	if err != nil {
		panic(err)
	}
	testTempDir = dir
	sharedDryRunCache = filepath.Join(dir, "cache")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary is the kregress binary, built on first use.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		kregressBin = filepath.Join(testTempDir, "kregress")
		if out, err := exec.Command("go", "build", "-o", kregressBin, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return kregressBin
}

// exitError is a non-zero exit status of an in-process command.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// inProcess runs a command line in-process, as main does, with env
// (KEY=VALUE) set for it, stdout and stderr together.
func inProcess(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	if code := execute(args, &out, &out); code != 0 {
		return out.String(), exitError(code)
	}
	return out.String(), nil
}

// seed writes two runs of two variants into a fresh store: run 1 has
// per-cpu-relock clearly better on lock holds; run 2 repeats it.
// openSQLite is store.OpenSQLite, for tests whose store path is named store.
var openSQLite = store.OpenSQLite

func seed(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for run := 1; run <= 2; run++ {
		r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			for j, v := range []string{"stock", "per-cpu-relock"} {
				res := &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
					Provenance: results.Provenance{Accel: "tcg", VCPUs: 2}, IrqsoffHolder: "handle_softirqs", IrqsoffWorstUS: 900,
					Metrics: []agentproto.Metric{
						{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i*7+run)},
						{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 52 - 20*float64(j) + float64(i%3)},
					}}
				if err := s.AddResult(ctx, res); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.FinishRun(ctx, r.ID, results.RunComplete, "")
	}
	// A run of another workload: no metric in common with the others.
	other := &results.Run{Experiment: "execve", Family: "pcpu", Baseline: "ungrouped", Variants: []string{"ungrouped"}, StartedAt: time.Now(), Status: results.RunComplete, Config: "x: 1"}
	s.CreateRun(ctx, other)
	s.AddResult(ctx, &results.Result{RunID: other.ID, Variant: "ungrouped", Status: results.StatusOK, Metrics: []agentproto.Metric{{Name: "execs_per_sec", Unit: "ops/s", Direction: agentproto.HigherIsBetter, Value: 1}}})
	return path
}

// kregress runs a command line in-process against store.
func kregress(t *testing.T, store string, args ...string) (string, error) {
	t.Helper()
	return inProcess(t, []string{"KREGRESS_STORE=" + store, "KREGRESS_RESULTS_DIR=" + filepath.Dir(store)}, args...)
}

func mustRun(t *testing.T, store string, args ...string) string {
	t.Helper()
	out, err := kregress(t, store, args...)
	if err != nil {
		t.Fatalf("kregress %v: %v\n%s", args, err, out)
	}
	return out
}

func TestDiffSetsAndFormats(t *testing.T) {
	store := seed(t)
	// The latest run (3) has only its baseline: a clear refusal.
	out, err := kregress(t, store, "diff")
	if err == nil || !strings.Contains(out, `only the baseline variant "ungrouped"`) {
		t.Fatalf("diff of a one-variant run: %v\n%s", err, out)
	}
	out = mustRun(t, store, "diff", "1")
	for _, want := range []string{"per-cpu-relock vs stock", "rstat_lock_hold_p99_us", "improvement", "p=0.002"} {
		if !strings.Contains(out, want) {
			t.Fatalf("diff 1 lacks %q:\n%s", want, out)
		}
	}
	out = mustRun(t, store, "diff", "1", "2")
	if !strings.Contains(out, "run2/stock vs run1/stock") || !strings.Contains(out, "run2/per-cpu-relock vs run1/per-cpu-relock") {
		t.Fatalf("diff 1 2 did not pair the variants:\n%s", out)
	}
	out = mustRun(t, store, "diff", "1/stock", "2/per-cpu-relock", "-f", "markdown")
	if !strings.Contains(out, "| rstat_lock_hold_p99_us (us) |") {
		t.Fatalf("markdown:\n%s", out)
	}
	for _, f := range []string{"json", "csv", "lkp"} {
		if out := mustRun(t, store, "diff", "1", "-f", f); len(out) < 100 {
			t.Fatalf("format %s: %q", f, out)
		}
	}
	html := filepath.Join(t.TempDir(), "r.html")
	mustRun(t, store, "diff", "1", "-f", "html", "-o", html)
	if data, _ := os.ReadFile(html); !strings.Contains(string(data), "<svg") {
		t.Fatal("html report has no plot")
	}
	if _, err := kregress(t, store, "diff", "1", "--fail-on-regression"); err != nil {
		t.Fatalf("no regression, but: %v", err)
	}
	// Swapped, the candidate is the baseline: a regression, exit 3.
	_, err = kregress(t, store, "diff", "1/per-cpu-relock", "1/stock", "--fail-on-regression")
	if exitCodeOf(err) != 3 {
		t.Fatalf("regression exit: %v", err)
	}
	out = mustRun(t, store, "diff", "1/per-cpu-relock", "1/stock", "--noise-floor-pct", "rstat_lock_hold_p99_us=100")
	if strings.Contains(out, "regression") && !strings.Contains(out, "no significant") {
		t.Fatalf("noise floor ignored:\n%s", out)
	}
}

func TestBadSets(t *testing.T) {
	store := seed(t)
	for args, want := range map[string]string{
		"diff 1 3":                 "no variant in common",
		"diff 1/stock 3/ungrouped": "no metric in common",
		"diff 99":                  "no run 99",
		"diff 1/nope 2":            `no results for variant "nope"`,
		"diff banana":              "neither a run id",
	} {
		out, err := kregress(t, store, strings.Fields(args)...)
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("%s: want error %q, got %v:\n%s", args, want, err, out)
		}
	}
	out, err := kregress(t, store, "diff", "1", "1", "--against", "postgres://nobody@127.0.0.1:1/x?sslmode=disable&connect_timeout=2")
	if err == nil || !strings.Contains(out, "127.0.0.1:1") {
		t.Errorf("unreachable --against: %v\n%s", err, out)
	}
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte("not sqlite"), 0o644)
	out, err = kregress(t, junk, "results", "list")
	if err == nil || !strings.Contains(out, "not a SQLite database") {
		t.Errorf("junk store: %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(junk); string(data) != "not sqlite" {
		t.Error("junk store modified")
	}
}

func TestExportImportPrune(t *testing.T) {
	store := seed(t)
	file := filepath.Join(t.TempDir(), "run1.json")
	mustRun(t, store, "results", "export", "1", "-o", file)
	bench := mustRun(t, store, "results", "export", "1", "-f", "benchfmt")
	if !strings.Contains(bench, "BenchmarkRstat/variant=per-cpu-relock 1 ") {
		t.Fatalf("benchfmt:\n%s", bench)
	}
	// Another store imports it; the diff from the file and from the
	// import agree.
	other := filepath.Join(t.TempDir(), "other.db")
	out := mustRun(t, other, "results", "import", file)
	if !strings.Contains(out, "imported") {
		t.Fatal(out)
	}
	a := mustRun(t, other, "diff", "1", "-f", "csv")
	b := mustRun(t, store, "diff", file, "-f", "csv")
	if a != b {
		t.Fatalf("imported run differs from the file:\n%s\n---\n%s", a, b)
	}
	out = mustRun(t, store, "results", "prune", "--keep", "1", "--dry-run")
	if !strings.Contains(out, "would delete run 2") || !strings.Contains(out, "would delete run 1") {
		t.Fatalf("dry run:\n%s", out)
	}
	mustRun(t, store, "results", "prune", "2")
	out = mustRun(t, store, "results", "list")
	if strings.Contains(out, "\n2 ") || !strings.Contains(out, "\n1 ") || !strings.Contains(out, "12/12 ok") {
		t.Fatalf("after prune:\n%s", out)
	}
	if _, err := kregress(t, store, "results", "prune"); err == nil {
		t.Fatal("prune without a selector accepted")
	}
	// An accepted run is a nightly baseline: kept unless --force.
	mustRun(t, store, "baseline", "accept", "1", "--reason", "intended")
	if out := mustRun(t, store, "results", "prune", "1"); !strings.Contains(out, "keep run 1: the baseline") {
		t.Fatalf("prune of a baseline:\n%s", out)
	}
	if out := mustRun(t, store, "results", "prune", "1", "--force"); !strings.Contains(out, "deleted run 1") {
		t.Fatalf("prune --force of a baseline:\n%s", out)
	}
}

// Runs measured differently (another accelerator and vCPU count) are not
// compared without --force; with it, the differences head the diff.
func TestDiffRefusesIncomparableRuns(t *testing.T) {
	store := seed(t)
	s, err := openSQLite(store)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunComplete, Config: "x: 1"}
	s.CreateRun(ctx, r)
	for i := 0; i < 6; i++ {
		s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
			Provenance: results.Provenance{Accel: "kvm", VCPUs: 8},
			Metrics:    []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 9000 + float64(i)}}})
	}
	s.Close()
	id := fmt.Sprint(r.ID)
	out, err := kregress(t, store, "diff", "1/stock", id+"/stock")
	if code := exitCodeOf(err); code != 2 || !strings.Contains(out, "were not measured alike") || !strings.Contains(out, "accelerator: tcg vs kvm") || !strings.Contains(out, "vCPUs: 2 vs 8") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	out = mustRun(t, store, "diff", "1/stock", id+"/stock", "--force")
	if !strings.Contains(out, "WARNING, compared with --force although measured differently:") || !strings.Contains(out, "reads_per_sec") {
		t.Fatalf("--force:\n%s", out)
	}
	// Runs measured alike still compare without a word.
	if out := mustRun(t, store, "diff", "1", "2"); strings.Contains(out, "measured differently") {
		t.Fatalf("alike runs flagged:\n%s", out)
	}
}

// exitCodeOf is the process's exit code (0 when err is nil, -1 when it
// did not exit).
func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if e, ok := err.(exitError); ok {
		return int(e)
	}
	return -1
}

// A newcomer's mistakes get clear refusals and lose nothing.
func TestNewcomerMistakes(t *testing.T) {
	store := seed(t)
	dir := t.TempDir()
	precious := filepath.Join(dir, "precious.txt")
	os.WriteFile(precious, []byte("keep me"), 0o644)
	for _, args := range [][]string{
		{"diff", "1", "-f", "htm", "-o", precious},
		{"diff", "999", "-o", precious},
		{"results", "export", "1", "-f", "xml", "-o", precious},
	} {
		if _, err := kregress(t, store, args...); err == nil {
			t.Errorf("%v succeeded", args)
		}
		if b, _ := os.ReadFile(precious); string(b) != "keep me" {
			t.Fatalf("%v emptied the output file: %q", args, b)
		}
	}
	typo := filepath.Join(dir, "typo.db")
	for _, args := range [][]string{{"results", "list", "--store", typo}, {"diff", "--store", typo}, {"diff", "1", "1", "--against", typo}} {
		out, err := kregress(t, store, args...)
		if exitCodeOf(err) != 2 || !strings.Contains(out, "no results store at") {
			t.Errorf("%v: exit %d\n%s", args, exitCodeOf(err), out)
		}
		if _, err := os.Stat(typo); err == nil {
			t.Fatalf("%v created %s", args, typo)
		}
	}
	if out, err := kregress(t, store, "results", "list", "--status", "bogus"); exitCodeOf(err) != 2 || !strings.Contains(out, "running, complete, interrupted or failed") {
		t.Errorf("--status bogus: %v\n%s", err, out)
	}
	if _, err := kregress(t, store, "results", "list", "1"); exitCodeOf(err) != 2 {
		t.Errorf("results list 1: %v", err)
	}
	mustRun(t, store, "results", "export", "1", "-o", filepath.Join(dir, "r1.json"))
	if out, err := kregress(t, store, "diff", "1", filepath.Join(dir, "r1.json")+"#stock"); exitCodeOf(err) != 2 || !strings.Contains(out, "name one on both sides") {
		t.Errorf("run against one variant: %v\n%s", err, out)
	}
	// -o into a directory that does not exist names it; capitals in
	// --format are the same format; a negative noise floor and a
	// directory given as the experiment file are refused (exit 2).
	if out, err := kregress(t, store, "diff", "1", "-o", filepath.Join(dir, "no", "such", "x.txt")); exitCodeOf(err) != 2 || !strings.Contains(out, "does not exist") {
		t.Errorf("-o into a missing directory: exit %d\n%s", exitCodeOf(err), out)
	}
	if out := mustRun(t, store, "diff", "1", "-f", "JSON"); !strings.Contains(out, `"delta_pct"`) {
		t.Errorf("-f JSON:\n%s", out)
	}
	if out, err := kregress(t, store, "diff", "1", "--noise-floor-pct", "reads_per_sec=-2"); exitCodeOf(err) != 2 || !strings.Contains(out, "reads_per_sec") {
		t.Errorf("negative noise floor: exit %d\n%s", exitCodeOf(err), out)
	}
	if out, err := kregress(t, store, "run", "-c", dir, "--dry-run"); exitCodeOf(err) != 2 || !strings.Contains(out, dir) {
		t.Errorf("a directory as experiment file: exit %d\n%s", exitCodeOf(err), out)
	}
	if out := mustRun(t, store, "--version"); !strings.HasPrefix(out, "kregress ") {
		t.Errorf("--version: %s", out)
	}
	if out := mustRun(t, store, "diff", "--help"); strings.Contains(out, "[=true|false]") || strings.Contains(out, "stringToString") {
		t.Errorf("help leaks pflag's types:\n%s", out)
	}
	if out := mustRun(t, store, "diff", "1", "-f", "csv"); strings.Contains(out, "Inf") {
		t.Errorf("CSV prints Inf:\n%s", out)
	}
	if out := mustRun(t, store, "diff", "1", "-f", "json"); strings.Contains(out, "DeltaPct") || !strings.Contains(out, `"delta_pct"`) || !strings.Contains(out, `"verdict"`) {
		t.Errorf("JSON keys:\n%s", out)
	}
}

// With a noise run of the experiment stored, a diff names the changes it
// did not call that lie below what the setup can see.
func TestDiffSaysBelowNoise(t *testing.T) {
	store := seed(t)
	s, err := openSQLite(store)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &results.Run{Experiment: "noise:rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	s.CreateRun(ctx, r)
	for i := 0; i < 8; i++ {
		s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2000 + 400*float64(i%2)}}})
	}
	s.FinishRun(ctx, r.ID, results.RunComplete, "")
	s.Close()
	out := mustRun(t, store, "diff", "1")
	if !strings.Contains(out, "note: per-cpu-relock reads_per_sec:") || !strings.Contains(out, "is below what this setup can see at n=6") {
		t.Fatalf("no sensitivity note:\n%s", out)
	}
}

func TestSelftestsKnown(t *testing.T) {
	out := mustRun(t, filepath.Join(t.TempDir(), "unused.db"), "selftests", "known")
	if !strings.Contains(out, "test_kmem/test_kmem_basic\n    ") || !strings.Contains(out, "test_cgfreezer_ptrace (flaky") {
		t.Fatalf("selftests known:\n%s", out)
	}
}

// TestEveryCommandHasExamples: a newcomer learns by example.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" || sub.Parent().Name() == "completion" {
				continue
			}
			if sub.Example == "" && sub.Deprecated == "" && !strings.Contains(sub.Short, "same as") {
				t.Errorf("kregress %s has no examples", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRoot())
}

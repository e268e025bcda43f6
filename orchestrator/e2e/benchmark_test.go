package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/workload/bench"
)

// forkBench is a user's own benchmark: a dynamically linked C program
// (packed into the image with its libraries and loader) timing fork +
// wait, printed in the Go benchmark format.
const forkBench = `#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 200;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) _exit(0);
		if (p < 0) return 1;
		waitpid(p, NULL, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("BenchmarkFork-2\t%d\t%.0f ns/op\n", n, ns / n);
	return 0;
}
`

// userBenchmark is the user's experiment file: the same kernel twice
// (the one every test shares), their program, its output read as Go
// benchmark lines.
const userBenchmark = `experiment: e2e-user-bench
family: same
families:
  same:
    baseline: a
    variants:
      a: {}
      b: {}
repetitions: 2
gate_only: true # 2+2 boots: shown, not judged
vm:
  cpus: 2
  boot_timeout: 90s
workload:
  name: benchmark
  duration: 2s
  benchmark:
    program: ./forkbench
    args: ["200"]
    runs: 3
    warmup: 1
    timeout: 60s
    host_dry_run: true
    output:
      format: gobench
    metrics:
      - {name: fork_ns, from: "BenchmarkFork ns/op"}
selftests:
  repetitions: 0
`

// TestUserBenchmark runs a user's own benchmark program end to end:
// refused before any build when its parser cannot read it, a dry run,
// a run of 2+2 boots whose every cell reports the program's metric and
// the irqs-off figures, and diff of that run.
func TestUserBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("boots 4 guests (run `make test`)")
	}
	bin := binDir(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "forkbench.c")
	os.WriteFile(src, []byte(forkBench), 0o644)
	if out, err := exec.Command("gcc", "-O2", "-o", filepath.Join(dir, "forkbench"), src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v: %s", err, out)
	}
	exp := filepath.Join(dir, "mine.yaml")
	os.WriteFile(exp, []byte(userBenchmark), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(userBenchmark, "BenchmarkFork ns/op", "BenchmarkExec ns/op", 1)), 0o644)
	results := t.TempDir()

	code, out := runKregress(t, bin, results, "run", "-c", bad)
	if code != 2 || !strings.Contains(out, "line 26, key workload.benchmark.metrics: dry run on the host: the output does not parse") || !strings.Contains(out, "BenchmarkFork-2") {
		t.Fatalf("a parser matching nothing: exit %d, want 2 naming the line and showing the output:\n%s", code, out)
	}
	if out := kregressRun(t, bin, results, "run", "--dry-run", "-c", exp); !strings.Contains(out, "workload benchmark") {
		t.Fatalf("dry run:\n%s", out)
	}
	out = kregressRun(t, bin, results, "run", "--extra-rounds", "0", "-c", exp)
	t.Logf("run:\n%s", out)
	if !strings.Contains(out, "fork_ns") {
		t.Fatalf("the run's report lacks fork_ns")
	}
	docs, _ := filepath.Glob(filepath.Join(results, "artifacts", "run-1", "*", "agent.json"))
	if len(docs) != 4 {
		t.Fatalf("%d agent documents, want 4 (2 variants x 2 boots): %v", len(docs), docs)
	}
	for _, p := range docs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var doc agentproto.Document
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got := map[string]agentproto.Metric{}
		for _, m := range doc.Metrics {
			got[m.Name] = m
		}
		f, ok := got["fork_ns"]
		if !ok || f.Value <= 0 || f.Unit != "ns/op" || f.Direction != agentproto.LowerIsBetter {
			t.Fatalf("%s: fork_ns %+v", p, f)
		}
		if _, ok := got["irqsoff_worst_us"]; !ok || doc.Irqsoff == nil {
			t.Fatalf("%s: no irqs-off figures from the traced half", p)
		}
		if doc.Params["program"] != bench.GuestDir+"/forkbench" || doc.Params["traced_runs"] == "0" {
			t.Fatalf("%s: params %v", p, doc.Params)
		}
	}
	diff := kregressRun(t, bin, results, "diff", "1")
	if !strings.Contains(diff, "fork_ns") || !strings.Contains(diff, "b vs a") {
		t.Fatalf("diff 1:\n%s", diff)
	}
	t.Logf("diff 1:\n%s", diff)

	userBenchmarkNights(t, bin, exp)
}

// userBenchmarkNights runs the user's experiment file as two nights,
// in a store of their own so that the first is the experiment's first:
// refused before anything runs when its boots could never judge
// fork_ns; night 1 sets the baseline; night 2 passes, every report
// showing fork_ns of each variant with its change against night 1, as
// shown, not judged (the experiment is gate-only), and none saying "no
// significant change" of it.
func userBenchmarkNights(t *testing.T, bin, exp string) {
	started := time.Now()
	store, dir := t.TempDir(), t.TempDir()
	junit, md := nightFiles(dir)
	night := func(n, wantCode int, extra ...string) (string, string, string) {
		t.Helper()
		os.Remove(junit)
		os.Remove(md)
		return runNight(t, bin, store, dir, n, wantCode, append([]string{"nightly", exp, "-o", "junit=" + junit, "-o", "markdown=" + md, "--extra-rounds", "0"}, extra...)...)
	}
	code, out := runKregress(t, bin, store, "nightly", exp, "--gate-only=false", "--extra-rounds", "0")
	if code != 2 || !strings.Contains(out, "2 repetitions cannot reach alpha") || !strings.Contains(out, "it needs 5 repetitions per variant") {
		t.Fatalf("a judged night of 2+2 boots: exit %d, want 2 before anything runs, naming the repetitions that would judge:\n%s", code, out)
	}
	out, j, _ := night(1, 0)
	if !strings.Contains(out, "tonight is the baseline") || !strings.Contains(j, `<skipped message="no good night of `) {
		t.Fatal("night 1 (after the refusal) did not set the baseline")
	}
	out, j, m := night(2, 0)
	if strings.Contains(j, "<failure") || strings.Contains(j, "<error") || !strings.Contains(j, `name="baseline_run_id" value="1"`) {
		t.Fatal("night 2 is not a clean night against night 1 (run 1)")
	}
	shown := regexp.MustCompile(`fork_ns [+-][0-9]+\.[0-9]% \(shown, not judged: gate_only; n=2\+2\)`)
	for _, v := range []string{"a", "b"} {
		if !regexp.MustCompile(`<testcase name="fork_ns" classname="e2e-user-bench\.` + v + `"[^>]*>\s*<skipped message="` + shown.String()).MatchString(j) {
			t.Fatalf("night 2: the JUnit has no skipped fork_ns case of %s with its change against night 1", v)
		}
		if !regexp.MustCompile(`\*\*skipped\*\* ` + v + ` fork_ns: ` + shown.String()).MatchString(m) {
			t.Fatalf("night 2: the Markdown does not show fork_ns of %s with its change against night 1", v)
		}
		if !regexp.MustCompile(`SKIPPED +` + v + ` fork_ns: ` + shown.String()).MatchString(out) {
			t.Fatalf("night 2: the table does not show fork_ns of %s with its change against night 1", v)
		}
	}
	for what, text := range map[string]string{"table": out, "junit": j, "markdown": m} {
		if strings.Contains(text, "no significant change") {
			t.Fatalf("night 2's %s says \"no significant change\" of metrics it did not judge", what)
		}
	}
	t.Logf("the nights took %s", time.Since(started).Round(time.Second))
}

package e2e

import (
	"os"
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
	compileBenchmark(t, dir, "forkbench", forkBench)
	exp := filepath.Join(dir, "mine.yaml")
	os.WriteFile(exp, []byte(userBenchmark), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(userBenchmark, "BenchmarkFork ns/op", "BenchmarkExec ns/op", 1)), 0o644)
	results := t.TempDir()

	// The dry run on the host is the command line's to allow, never
	// the file's alone: without the flag the program first runs in the
	// guest.
	code, out := runKregress(t, bin, results, "run", "--benchmark-host-dry-run", "-c", bad)
	if code != 2 || !strings.Contains(out, "line 26, key workload.benchmark.metrics: dry run on the host: the output does not parse") || !strings.Contains(out, "BenchmarkFork-2") {
		t.Fatalf("a parser matching nothing: exit %d, want 2 naming the line and showing the output:\n%s", code, out)
	}
	if out := kregressRun(t, bin, results, "run", "--dry-run", "-c", exp); !strings.Contains(out, "workload benchmark") {
		t.Fatalf("dry run:\n%s", out)
	}
	out = kregressRun(t, bin, results, "run", "--extra-rounds", "0", "-c", exp)
	logAfter(t, "run:\n%s", out)
	if !strings.Contains(out, "fork_ns") {
		t.Fatalf("the run's report lacks fork_ns")
	}
	docs := agentDocs(t, results, 1)
	if len(docs) != 4 {
		t.Fatalf("%d agent documents, want 4 (2 variants x 2 boots): %v", len(docs), docs)
	}
	for _, c := range docs {
		p, doc, got := c.Path, c.Doc, c.Metrics
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
	logAfter(t, "diff 1:\n%s", diff)

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

// cpuStatBench is the user's program for the bisect: it times reads of a
// child cgroup's cpu.stat, each of which flushes the cgroup's rstat tree
// under cgroup_rstat_lock (the root's is read without the lock, so it
// makes a cgroup of its own), while a second process reads the same file
// (the two contend for the lock), printed in the Go benchmark format. It
// makes a cgroup: not a program to dry-run on the host.
const cpuStatBench = `#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define DIR "/sys/fs/cgroup/kregress-cpustat"
static int reads(int n) {
	char buf[4096];
	for (int i = 0; i < n; i++) {
		int fd = open(DIR "/cpu.stat", O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof buf) <= 0) { perror(DIR "/cpu.stat"); return 1; }
		close(fd);
	}
	return 0;
}
int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 200;
	struct timespec a, b;
	if (mkdir(DIR, 0755) < 0 && errno != EEXIST) { perror(DIR); return 1; }
	pid_t other = fork();
	if (other < 0) { perror("fork"); return 1; }
	if (other == 0) _exit(reads(n));
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (reads(n)) return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	int st;
	if (waitpid(other, &st, 0) < 0 || st != 0) { fprintf(stderr, "the second reader failed\n"); return 1; }
	rmdir(DIR);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("BenchmarkCPUStatRead-2\t%d\t%.0f ns/op\n", n, ns / n);
	return 0;
}
`

// userBisect is the user's experiment file for the bisect: their
// program, its output read as Go benchmark lines, and the contention of
// the lock it times, named by symbol and by the function whose callers
// wait for it.
const userBisect = `experiment: e2e-user-bench-bisect
family: same
families:
  same:
    baseline: a
    variants:
      a: {}
vm:
  cpus: 2
  boot_timeout: 90s
  # Contention needs vCPUs that run at once: under icount one host
  # thread runs them in turn, and the bad endpoint's boots saw no wait.
  clock: host
workload:
  name: benchmark
  duration: 2s
  benchmark:
    program: ./cpustatbench
    args: ["100"]
    runs: 3
    warmup: 1
    timeout: 60s
    host_dry_run: false # it makes a cgroup
    output:
      format: gobench
    metrics:
      - {name: cpustat_read_ns, from: "BenchmarkCPUStatRead ns/op"}
  lock_contention: [cgroup_rstat_lock]
  lock_contention_under: [cgroup_base_stat_cputime_show]
selftests:
  repetitions: 0
`

// TestUserBenchmarkBisect bisects, for real, by a user's own benchmark
// metric: the commits of the bisect fixture (TestBisect's, so their
// kernels are cached alike) from the one that fixes the build to the
// tip, whose first (fixtureCulprit) holds cgroup_rstat_lock 200 us
// longer on every acquisition, which every read of a cgroup's cpu.stat
// makes. The bisect by cpustat_read_ns must name that commit and confirm
// it by its revert. Its boots also record the lock's contention: by
// symbol it is unavailable on these kernels, saying why; under the
// function that takes it, the bad endpoint's boots report real waits.
func TestUserBenchmarkBisect(t *testing.T) {
	if testing.Short() {
		t.Skip("boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	repo := fixtureRepo(t)
	dir, results := t.TempDir(), t.TempDir()
	compileBenchmark(t, dir, "cpustatbench", cpuStatBench)
	exp := filepath.Join(dir, "bisect.yaml")
	os.WriteFile(exp, []byte(userBisect), 0o644)
	commits := commitSteps(t, repo, "e2e-user-bench-bisect", bisectFixture(t))
	good, bad, culprit := commits[fixtureCulprit-1], commits[len(commits)-1], commits[fixtureCulprit]

	started := time.Now()
	code, out := runBisect(t, bin, results, "-c", exp, "--kernel.git-tree", repo.Path,
		"--good", good, "--bad", bad, "--metric", "cpustat_read_ns", "--looks", "5,5")
	logAfter(t, "bisect by cpustat_read_ns, exit %d, %s:\n%s", code, time.Since(started).Round(time.Second), out)
	if code != 0 || !strings.Contains(out, "result: first bad commit: "+culprit[:12]+" cgroup/rstat: hold the lock 200us longer") {
		t.Fatalf("exit %d: the slowing commit %.12s was not named by cpustat_read_ns:\n%s", code, culprit, tail(out, 40))
	}
	if !strings.Contains(out, "confirmation by revert: confirmed: ") {
		t.Fatalf("the culprit was not confirmed by its revert:\n%s", tail(out, 40))
	}
	checkUserBisectContention(t, results)
}

// checkUserBisectContention reads the agent documents of the bisect's
// first run (the endpoints and the first step): in every boot,
// cgroup_rstat_lock by symbol is unavailable because the guest config
// has no CONFIG_KALLSYMS_ALL (a lock is data), and the waits under
// cgroup_base_stat_cputime_show are counted; in every boot of the bad
// endpoint, whose holds are 200 us longer while two processes read
// cpu.stat, they are real: a count and 0 < p50 <= p99 <= max.
func checkUserBisectContention(t *testing.T, results string) {
	t.Helper()
	docs := agentDocs(t, results, 1)
	if len(docs) == 0 {
		t.Fatal("no agent documents in the bisect's first run")
	}
	const under = "lock_under_cgroup_base_stat_cputime_show"
	badBoots := 0
	for _, c := range docs {
		cell, why := c.Cell, c.Why
		for _, m := range []string{"lock_cgroup_rstat_lock_contentions", "lock_cgroup_rstat_lock_wait_p50_us", "lock_cgroup_rstat_lock_wait_p99_us", "lock_cgroup_rstat_lock_wait_max_us"} {
			if !strings.Contains(why[m], "no symbol cgroup_rstat_lock in /proc/kallsyms") || !strings.Contains(why[m], "CONFIG_KALLSYMS_ALL") {
				t.Fatalf("%s: %s is not unavailable for want of the symbol: %q", cell, m, why[m])
			}
		}
		got := func(m string) float64 { v, _ := c.value(m); return v }
		n, ok := c.value(under + "_contentions")
		if !ok {
			t.Fatalf("%s: no %s_contentions (unavailable: %q)", cell, under, why[under+"_contentions"])
		}
		t.Logf("%s: cpustat_read_ns %.0f, %s: %.0f waits, p50 %.1f us, p99 %.1f us, max %.1f us", cell, got("cpustat_read_ns"), under, n,
			got(under+"_wait_p50_us"), got(under+"_wait_p99_us"), got(under+"_wait_max_us"))
		if !strings.Contains(cell, "-bad-") {
			continue
		}
		badBoots++
		p50, p99, max := got(under+"_wait_p50_us"), got(under+"_wait_p99_us"), got(under+"_wait_max_us")
		if n < 1 || !(0 < p50 && p50 <= p99 && p99 <= max) {
			t.Fatalf("%s: the bad endpoint's waits under cgroup_base_stat_cputime_show are not real: %.0f waits, p50 %v, p99 %v, max %v", cell, n, p50, p99, max)
		}
	}
	if badBoots == 0 {
		t.Fatalf("no boot of the bad endpoint among %v", docs)
	}
}

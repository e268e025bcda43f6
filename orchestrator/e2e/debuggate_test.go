package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDebugGate: a candidate that takes two spinlocks in both orders
// (always under a third, so it never deadlocks) passes the measured run,
// where nothing checks lock order, and is flagged by the gate's debug
// pass, whose lockdep kernel reports the inversion by its title; the run
// exits 3. (A candidate that sleeps holding a spinlock was tried first: it
// broke the guest's agent even without the checks, so the measured run
// alone already failed it.) Both passes record the contention of the
// candidate's outer lock and of cgroup_rstat_lock, named by symbol: the
// measured kernels' config has no CONFIG_KALLSYMS_ALL, so there they are
// unavailable with that reason; the debug kernels' has, so there they are
// resolved and measured, and the candidate's outer lock, which both
// memory.stat readers take for 500 us on every read, has real waits.
func TestDebugGate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds debug kernels and boots them (run `make test`)")
	}
	bin := binDir(t)
	testdata, _ := filepath.Abs("testdata")
	exp := filepath.Join(t.TempDir(), "debug.yaml")
	os.WriteFile(exp, []byte(`experiment: e2e-debug
family: lockorder
families:
  lockorder:
    workload: rstat
    baseline: base
    variants:
      base: {}
      inverts: {patches: [`+filepath.Join(testdata, "invert-lock-order-memory-stat.patch")+`]}
debug:
  pass: on
  duration: 3s
`+strings.Replace(userChangeWorkload, "workload:\n", "workload:\n  lock_contention: [kregress_e2e_outer, cgroup_rstat_lock]\n", 1)), 0o644)
	results := t.TempDir()
	code, out := runKregress(t, bin, results, "run", "--extra-rounds", "0", "-c", exp, "--fail-on-regression")
	logAfter(t, "kregress run:\n%s", out)
	main, debug, found := strings.Cut(out, "debug pass of the correctness gate")
	if !found {
		t.Fatal("no debug pass ran")
	}
	const title = "WARNING: possible circular locking dependency detected in memory_stat_show"
	if !strings.Contains(main, "kernel reports (WARNING, BUG, lockdep, stalls, panics): none") || strings.Contains(main, "significant regression(s)") || strings.Contains(main, "FLAGGED") {
		t.Fatal("the measured (non-debug) run already flagged the candidate: the test proves nothing")
	}
	if !regexp.MustCompile(`inverts +NEW: ` + regexp.QuoteMeta(title)).MatchString(debug) {
		t.Errorf("the debug pass did not flag %q", title)
	}
	if code != 3 {
		t.Fatalf("exit %d, want 3: the debug pass flagged the candidate", code)
	}
	checkDebugGateContention(t, results)
}

// checkDebugGateContention reads the agent documents of the measured run
// (run 1) and of the debug pass (run 2).
func checkDebugGateContention(t *testing.T, results string) {
	t.Helper()
	for run, wantDocs := range map[int]int{1: 2, 2: 2} {
		docs := agentDocs(t, results, run)
		if len(docs) != wantDocs {
			t.Fatalf("run %d: %d agent documents, want %d: %v", run, len(docs), wantDocs, docs)
		}
		for _, c := range docs {
			cell := fmt.Sprintf("run %d %s", run, c.Cell)
			why := c.Why
			got := func(m string) float64 { v, _ := c.value(m); return v }
			for _, lock := range []string{"kregress_e2e_outer", "cgroup_rstat_lock"} {
				count := "lock_" + lock + "_contentions"
				n, measured := c.value(count)
				t.Logf("%s: %s: %v waits (measured %v), p50 %v us, p99 %v us, max %v us; unavailable: %q", cell, lock, n, measured,
					got("lock_"+lock+"_wait_p50_us"), got("lock_"+lock+"_wait_p99_us"), got("lock_"+lock+"_wait_max_us"), why[count])
				// Only the candidate's kernels have the outer lock.
				exists := lock == "cgroup_rstat_lock" || strings.Contains(cell, "-inverts-")
				switch {
				case run == 1 || !exists:
					if measured || !strings.Contains(why[count], "no symbol "+lock+" in /proc/kallsyms") {
						t.Fatalf("%s: %s is not unavailable for want of its symbol: %v, %q", cell, lock, measured, why[count])
					}
				case !measured:
					t.Fatalf("%s: the debug kernel (CONFIG_KALLSYMS_ALL) did not measure %s: %q", cell, lock, why[count])
				case n >= 1:
					// Whether two readers meet on the lock in one short
					// boot is chance (some boots see none), so a count of
					// 0 is a measurement here; real waits are
					// asserted where contention is certain
					// (TestUserBenchmarkBisect). Waits that were counted
					// must have figures that hold together.
					p50, p99, max := got("lock_"+lock+"_wait_p50_us"), got("lock_"+lock+"_wait_p99_us"), got("lock_"+lock+"_wait_max_us")
					if !(0 < p50 && p50 <= p99 && p99 <= max) {
						t.Fatalf("%s: %s's %v waits have no real figures: p50 %v, p99 %v, max %v", cell, lock, n, p50, p99, max)
					}
				}
			}
		}
	}
}

package e2e

import (
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
// alone already failed it.)
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
`+userChangeWorkload), 0o644)
	code, out := runKregress(t, bin, t.TempDir(), "run", "--extra-rounds", "0", "-c", exp, "--fail-on-regression")
	t.Logf("kregress run:\n%s", out)
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
}

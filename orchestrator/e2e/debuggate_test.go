package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDebugGate: a candidate that sleeps holding a spinlock passes the
// measured run (nothing in a production config notices) and is flagged by
// the gate's debug pass, whose lockdep kernel reports the sleep in atomic
// context by its title; the run exits 3.
func TestDebugGate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds debug kernels and boots them (run `make test`)")
	}
	bin := binDir(t)
	testdata, _ := filepath.Abs("testdata")
	exp := filepath.Join(t.TempDir(), "debug.yaml")
	os.WriteFile(exp, []byte(`experiment: e2e-debug
family: sleeper
families:
  sleeper:
    workload: rstat
    baseline: base
    variants:
      base: {}
      sleeps: {patches: [`+filepath.Join(testdata, "sleep-in-atomic-memory-stat.patch")+`]}
debug:
  enabled: true
  duration: 3s
`+userChangeWorkload), 0o644)
	code, out := runKregress(t, bin, t.TempDir(), "run", "-c", exp, "--fail-on-regression")
	t.Logf("kregress run:\n%s", out)
	main, debug, found := strings.Cut(out, "debug pass of the correctness gate")
	if !found {
		t.Fatal("no debug pass ran")
	}
	const title = "BUG: sleeping function called from invalid context in memory_stat_show"
	if strings.Contains(main, title) || !strings.Contains(main, "kernel reports (WARNING, BUG, lockdep, stalls, panics): none") {
		t.Fatal("the measured (non-debug) run already reported the sleep: the test proves nothing")
	}
	if !regexp.MustCompile(`sleeps +NEW: ` + regexp.QuoteMeta(title)).MatchString(debug) {
		t.Errorf("the debug pass did not flag %q", title)
	}
	if code != 3 {
		t.Fatalf("exit %d, want 3: the debug pass flagged the candidate", code)
	}
}

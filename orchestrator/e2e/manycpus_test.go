package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/store/storetest"
)

// manyCPUs is a guest of 16 vCPUs on whatever the host has (2 cores in
// CI, no KVM): the base kernel alone, one boot, the execve workload with
// one exec chain per online CPU, each bound to its CPU (the default).
// Its chains each finish a fixed number of execs, so every CPU's work
// completes within the run; rstat's readers read for a time instead,
// and at 16 vCPUs under icount one of them may not finish a read in it.
const manyCPUs = `experiment: e2e-16cpus
family: tip
families:
  tip:
    workload: execve
    baseline: tip
    variants:
      tip: {}
repetitions: 1
gate_only: true
vm:
  cpus: 16
  boot_timeout: 5m
workload:
  name: execve
  duration: 4s
selftests:
  repetitions: 0
`

// TestSixteenVCPUs boots a 16-vCPU guest under the default clock and
// checks that the workload's actors did their work on all 16 CPUs
// (cpus_used, counted in the guest from where each chain ran), that
// the guest had 16 online CPUs, and that the clock that made it possible
// is stored with the cell.
func TestSixteenVCPUs(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a 16-vCPU guest (run `make test`)")
	}
	bin := binDir(t)
	dir, results := t.TempDir(), t.TempDir()
	exp := filepath.Join(dir, "16cpus.yaml")
	if err := os.WriteFile(exp, []byte(manyCPUs), 0o644); err != nil {
		t.Fatal(err)
	}
	out := kregressRun(t, bin, results, "run", "--extra-rounds", "0", "-c", exp)
	logAfter(t, "16 vCPUs:\n%s", out)
	if !strings.Contains(out, "16 vCPUs") {
		t.Fatalf("the cell did not boot 16 vCPUs:\n%s", tail(out, 20))
	}
	docs := agentDocs(t, results, 1)
	if len(docs) != 1 {
		t.Fatalf("%d agent documents, want 1: %v", len(docs), docs)
	}
	d := docs[0]
	used, ok := d.value("cpus_used")
	if !ok || used != 16 {
		t.Fatalf("%s: cpus_used %v (measured: %v), want 16: the workload did not run on every CPU (unavailable: %q)", d.Cell, used, ok, d.Why["cpus_used"])
	}
	if execs, ok := d.value("execs_per_sec"); !ok || execs <= 0 {
		t.Fatalf("%s: no execs at 16 vCPUs", d.Cell)
	}
	store := storetest.SQLiteIn(t, results)
	run := latestRun(t, store, "e2e-16cpus")
	for _, r := range resultsOf(t, store, run.ID) {
		if r.Provenance.VCPUs != 16 || r.Provenance.Accel == "tcg" && !strings.HasPrefix(r.Provenance.Clock, "icount") {
			t.Errorf("%s: provenance says %d vCPUs under %s, clock %q; want 16, under TCG with icount", r.Variant, r.Provenance.VCPUs, r.Provenance.Accel, r.Provenance.Clock)
		}
	}
}

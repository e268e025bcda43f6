package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// tarball61 is Debian 12's linux-source-6.1 (6.1.192), which `make test`
// installs: the second kernel every change is run on, so that version
// drift (a tracepoint, a selftest, a Kconfig option, a patch's context)
// is caught in CI.
const tarball61 = "/usr/src/linux-source-6.1.tar.xz"

// quick61 is one quick-mode run on 6.1: one boot per variant (gate_only:
// one boot cannot judge a metric), the selftests 6.1 has that the 6.12
// case runs too, one repetition.
const quick61 = `experiment: e2e-6.1
repetitions: 1
gate_only: true
kernel:
  debian_package: linux-source-6.1
vm:
  cpus: 2
  memory_mb: 1024
  boot_timeout: 90s
  clock: host # 6.1 hangs bringing up its second CPU under icount
workload:
  name: rstat
  duration: 3s
  params:
    readers: "2"
    hogs: "2"
    hog-limit-mb: "48"
    window: 1s
selftests:
  binaries: [test_core, test_freezer, test_kill]
  repetitions: 1
  timeout: 2m
debug:
  pass: off
`

// TestDebian61 runs the pipeline on Debian's 6.1 tree: a built-in family
// made for 6.12 is refused before anything is built (naming the family,
// the tree's version, the hunk and the family that fits 6.1), and quick
// mode with a one-hunk rstat change builds, boots and measures every
// metric 6.1 can produce, the others stored as unavailable with the
// reason, and runs the gate with 6.1's own known failures.
func TestDebian61(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and boots Debian's 6.1 kernel (run `make test`)")
	}
	if _, err := os.Stat(tarball61); err != nil {
		t.Fatalf("%v: install the Debian package linux-source-6.1 (make test-deps does)", err)
	}
	bin := binDir(t)
	resultsDir := t.TempDir()
	t.Setenv("KREGRESS_KERNEL_DEBIAN_PACKAGE", "linux-source-6.1")

	// 1. The 6.12 families do not fit: refused in seconds, exit 2.
	code, out := runKregress(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", "rstat-relock")
	for _, want := range []string{"family rstat (its patches fit kernels 6.12-6.15) does not fit", "version 6.1.192", "hunk #1", "cpuset-6.1"} {
		if code != 2 || !strings.Contains(out, want) {
			t.Fatalf("rstat family on 6.1: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "make O=") {
		t.Fatalf("a refused family built a kernel:\n%s", out)
	}

	// 2. Quick mode with a one-hunk change made for 6.1.
	cfg := filepath.Join(t.TempDir(), "e2e61.yaml")
	os.WriteFile(cfg, []byte(quick61), 0o644)
	patch, _ := filepath.Abs("testdata/rstat-relock-every-cpu-6.1.patch")
	out = kregressRun(t, bin, resultsDir, "run", "--extra-rounds", "0", "-c", cfg, "--patch", patch)
	logAfter(t, "kregress run output:\n%s", out)
	for _, want := range []string{
		"not measured (the kernel cannot produce them",
		"unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked",
		"patched vs base", "verdict:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	store := storetest.SQLiteIn(t, resultsDir)
	run := latestRun(t, store, "e2e-6.1")
	rs := resultsOf(t, store, run.ID)
	if len(rs) != 2 || run.Status != results.RunComplete {
		t.Fatalf("run %s with %d results, want complete with 2", run.Status, len(rs))
	}
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("%s: %s: %s", r.Variant, r.Status, r.Error)
		}
		if !strings.HasPrefix(r.Provenance.SourceID, "debian:linux-source-6.1=") || !strings.HasPrefix(r.Provenance.GuestKernel, "6.1.192") {
			t.Errorf("%s: source %q guest %q: not the 6.1 tree", r.Variant, r.Provenance.SourceID, r.Provenance.GuestKernel)
		}
		doc, err := agentproto.Decode(r.Document)
		if err != nil {
			t.Fatal(err)
		}
		if m, ok := doc.Metric("reads_per_sec"); !ok || m.Value <= 0 {
			t.Errorf("%s: no memory.stat reads", r.Variant)
		}
		if _, ok := doc.Metric("rstat_lock_hold_p50_us"); ok {
			t.Errorf("%s: a lock-hold figure on a kernel without the tracepoints", r.Variant)
		}
		unavailable := map[string]string{}
		for _, u := range doc.Unavailable {
			unavailable[u.Metric] = u.Reason
		}
		if !strings.Contains(unavailable["rstat_lock_hold_p50_us"], "no tracepoint cgroup:cgroup_rstat_locked") {
			t.Errorf("%s: unavailable %v: want the lock holds with their reason", r.Variant, unavailable)
		}
		// 6.1's flush functions are named *rstat*: the share is measured.
		if _, ok := doc.Metric("irqsoff_rstat_windows_pct"); !ok {
			t.Errorf("%s: irqsoff_rstat_windows_pct neither measured nor unavailable (%v)", r.Variant, unavailable)
		}
		if len(r.Selftests) == 0 {
			t.Errorf("%s: the gate did not run", r.Variant)
		}
	}
}

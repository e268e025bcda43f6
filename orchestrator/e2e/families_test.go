package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/store/storetest"
)

// familyCase is one family TestEveryFamilyRuns runs: its workload with
// params, the metrics the workload's document must carry (the first one
// positive) and its selftests section.
type familyCase struct {
	family, workload, params string
	metrics                  []string
	// selftests: each family runs the cgroup selftest closest to
	// what its candidate changes.
	selftests string
}

// TestEveryFamilyRuns builds every family's variants on the default base,
// boots each once and runs its workload briefly: each workload's document
// must parse and carry its own metrics.
func TestEveryFamilyRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and boots real kernels (run `make test`)")
	}
	bin := binDir(t)
	resultsDir := t.TempDir()
	cases := []familyCase{
		{"lru", "lru-drain", "pause: 20ms", []string{"drain_idle_p50_us", "drain_busy_p99_us", "drain_busy_p50_us_traced", "irqsoff_worst_us"}, selftestsOnly("test_hugetlb_memcg, test_zswap, mm/mlock2-tests")},
		{"rstat", "rstat", "readers: \"1\"", []string{"reads_per_sec", "rstat_lock_hold_p99_us", "rstat_lock_hold_reader_p99_us", "irqsoff_worst_us"}, selftestsOnly("test_memcontrol")},
		{"pcpu", "execve", "chain: \"20\"", []string{"execs_per_sec", "execs_per_sec_per_worker", "irqsoff_worst_us"}, selftestsOnly("test_pids")},
		// At 8 vCPUs: the partition script needs them (about 2.7 and
		// 1.6 minutes on the two variants under TCG on 2 cores).
		{"cpuset", "cgroup-attach", "pause: 5ms", []string{"attaches_per_sec", "attach_latency_p99_us", "irqsoff_worst_us"},
			"selftests:\n  binaries: [test_cpuset, test_cpuset_prs.sh]\n  repetitions: 1\n  timeout: 10m\n"},
	}
	for _, c := range cases {
		t.Run(c.family, func(t *testing.T) {
			cfg := writeFamilyExperiment(t, c)
			runFamilyExperiment(t, bin, resultsDir, cfg)
			store := storetest.SQLiteIn(t, resultsDir)
			run := latestRun(t, store, "e2e-"+c.family)
			rs, _ := store.Results(t.Context(), run.ID)
			want := 2
			if len(rs) < want {
				t.Fatalf("%d results, want %d", len(rs), want)
			}
			for _, r := range rs {
				checkFamilyResult(t, c, r)
				checkFamilySelftests(t, r)
			}
		})
	}
}

// writeFamilyExperiment writes c's experiment (gate only, one repetition,
// no debug pass) into the test's temporary directory and returns its path.
func writeFamilyExperiment(t *testing.T, c familyCase) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), c.family+".yaml")
	variants := "[]"
	if c.family == "rstat" {
		variants = "[every-n-8, lock-outside-loop]"
	}
	cpus := "2"
	if c.family == "cpuset" {
		cpus = "8"
	}
	fragments := "[guest.config]"
	if c.family == "lru" {
		fragments = "[guest.config, lru.config]" // compact_memory, the drain trigger
	}
	os.WriteFile(cfg, []byte("experiment: e2e-"+c.family+"\nfamily: "+c.family+"\nvariants: "+variants+
		"\nrepetitions: 1\ngate_only: true\nkernel:\n  fragments: "+fragments+"\nvm:\n  cpus: "+cpus+"\nworkload:\n  name: "+c.workload+"\n  duration: 2s\n  params:\n    "+c.params+"\n"+c.selftests+
		// The debug pass has its own test (TestDebugGate).
		"debug:\n  pass: off\n"), 0o644)
	return cfg
}

// runFamilyExperiment runs kregress run on cfg with the shared kernel
// cache, storing into resultsDir, and fails the test if it fails.
func runFamilyExperiment(t *testing.T, bin, resultsDir, cfg string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "kregress"), "run", "--extra-rounds", "0", "-c", cfg)
	cmd.Env = append(os.Environ(), "KREGRESS_CACHE_DIR="+cacheDir(), "KREGRESS_RESULTS_DIR="+resultsDir, "KREGRESS_AGENT="+filepath.Join(bin, "kagent"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("kregress run: %v\n%s", err, out.String())
	}
}

// checkFamilyResult checks one cell of c's run: good, with every metric
// of c (the first one positive), the kernel command line (with the
// variant's parameter for every-n-*) and selftest results recorded.
func checkFamilyResult(t *testing.T, c familyCase, r *results.Result) {
	t.Helper()
	if r.Status != results.StatusOK {
		t.Fatalf("%s: %s: %s", r.Variant, r.Status, r.Error)
	}
	have := map[string]float64{}
	for _, m := range r.Metrics {
		have[m.Name] = m.Value
	}
	for _, want := range c.metrics {
		if _, ok := have[want]; !ok {
			t.Fatalf("%s: no metric %s (have %v)", r.Variant, want, have)
		}
	}
	if have[c.metrics[0]] <= 0 {
		t.Fatalf("%s: %s = %v", r.Variant, c.metrics[0], have[c.metrics[0]])
	}
	if !strings.Contains(r.Provenance.Cmdline, "console=ttyS0") {
		t.Fatalf("%s: cmdline not recorded", r.Variant)
	}
	if strings.HasPrefix(r.Variant, "every-n-") && !strings.Contains(r.Provenance.Cmdline, "cgroup_rstat_relock_every=") {
		t.Fatalf("%s: variant cmdline missing: %s", r.Variant, r.Provenance.Cmdline)
	}
	if len(r.Selftests) == 0 {
		t.Fatalf("%s: no selftest result stored", r.Variant)
	}
}

// checkFamilySelftests checks that the gate is clean: every failure is a
// diagnosed one (test_memcontrol passes whole only when the guest has
// swap and a disk filesystem and the binary was built the way kselftest
// builds it).
func checkFamilySelftests(t *testing.T, r *results.Result) {
	t.Helper()
	known := selftests.KnownFailures()
	for _, st := range r.Selftests {
		// A skip would hide that it never ran (too few CPUs).
		// (A script that failed once and passed on its rerun did run.)
		if _, script := selftests.Scripts[st.Binary]; script && st.Outcome != agentproto.SelftestPass && st.Outcome != agentproto.SelftestFlaky {
			t.Errorf("%s: %s: %s (%s)", r.Variant, st.Key(), st.Outcome, st.Detail)
		}
		if st.Outcome == agentproto.SelftestFlaky {
			t.Logf("%s: selftest %s failed, then passed on its rerun: %s", r.Variant, st.Key(), st.Detail)
		}
		if _, ok := known[st.Key()]; compare.SelftestFailed(st.Outcome) && !ok {
			t.Errorf("%s: selftest %s: %s (%s), an unexplained failure", r.Variant, st.Key(), st.Outcome, st.Detail)
		}
	}
}

// selftestsOnly runs only the named selftests, once, at the default
// timeout: a timeout is never rerun and counts as a failure, so the test
// leaves a loaded host the room a user's run has.
func selftestsOnly(binary string) string {
	return "selftests:\n  binaries: [" + binary + "]\n  repetitions: 1\n  timeout: 3m\n"
}

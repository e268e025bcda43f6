package selftests

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestKnownFailuresParse(t *testing.T) {
	known := KnownFailures()
	for _, k := range KnownList() {
		bin, _, ok := strings.Cut(k.Test, "/")
		if !ok {
			t.Errorf("%q is not binary/test", k.Test)
		}
		found := false
		for _, b := range DefaultBinaries {
			found = found || b == bin
		}
		if !found {
			t.Errorf("%s: binary %s is not among the default selftests", k.Test, bin)
		}
		if known[k.Test].Reason != k.Reason || len(k.Reason) < 20 {
			t.Errorf("%s: reason %q", k.Test, k.Reason)
		}
	}
	if _, err := parseKnown([]byte("known:\n- {test: a/b, reason: x}\n- {test: a/b, reason: y}\n")); err == nil {
		t.Error("a test listed twice accepted")
	}
	if _, err := parseKnown([]byte("known:\n- {test: a/b}\n")); err == nil {
		t.Error("an entry without a reason accepted")
	}
	if _, err := parseKnown([]byte("known:\n- {test: a/b, reason: x, kernels: [\"6.12\"], clock: tsc}\n")); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Errorf("an unknown clock accepted: %v", err)
	}
	reclaim := known["test_memcontrol/test_memcg_reclaim"]
	if !reclaim.AppliesTo("6.12.118", "icount shift=3") || reclaim.AppliesTo("6.12.118", "host") || reclaim.AppliesTo("6.12.118", "") {
		t.Errorf("test_memcg_reclaim is known under icount only: %+v", reclaim)
	}
}

// The gate's command asks for reruns, and names as expected the known
// failures (flaky or not) of the binaries it runs: a rerun for them would
// only cost time.
func TestCommand(t *testing.T) {
	cmd := Command([]string{"test_kmem", "test_cpu"}, 3*time.Minute, true)
	for _, want := range []string{"-rerun-failures", "-timeout 3m0s", "test_kmem/test_kmem_basic", "test_kmem/test_percpu_basic", "test_cpu/test_cpucg_max,", " test_kmem test_cpu"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
	if strings.Contains(cmd, "test_memcg_min") {
		t.Errorf("command %q names a known failure of a binary it does not run", cmd)
	}
	if cmd := Command([]string{"test_kill"}, time.Minute, true); strings.Contains(cmd, "-expected") {
		t.Errorf("command %q expects failures of binaries it does not run", cmd)
	}
	if cmd := Command([]string{"test_kmem"}, time.Minute, false); strings.Contains(cmd, "-rerun") || strings.Contains(cmd, "-expected") {
		t.Errorf("reruns off, command %q", cmd)
	}
	// The default gate's command is what it was: no targets directory.
	if got, want := Command([]string{"test_core", "mm/compaction_test"}, time.Minute, false), "/bin/kagent selftests -dir /usr/lib/kselftest/gate -timeout 1m0s test_core mm/compaction_test"; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	if got, want := Command([]string{"test_core", "sched:cs_prctl_test"}, time.Minute, false), "/bin/kagent selftests -dir /usr/lib/kselftest/gate -timeout 1m0s -targets-dir /usr/lib/kselftest/targets test_core sched:cs_prctl_test"; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
}

// WriteKnown lists every known failure, each with its reason, the flaky
// ones said to be.
func TestWriteKnown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteKnown(&b); err != nil {
		t.Fatal(err)
	}
	flaky := false
	for _, k := range KnownList() {
		if !strings.Contains(b.String(), k.Test) || !strings.Contains(b.String(), "    "+k.Reason+"\n") {
			t.Errorf("WriteKnown lacks %s and its reason:\n%s", k.Test, b.String())
		}
		flaky = flaky || k.Flaky
	}
	if flaky != strings.Contains(b.String(), "(flaky: fails some of the time)") {
		t.Errorf("WriteKnown's flaky notes (any flaky: %v):\n%s", flaky, b.String())
	}
}

package variants

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
)

// A gate test that needs more CPUs than the guest has is refused up front
// (it would only skip), naming the experiment that has them; that
// experiment resolves.
func TestGateTestNeedsMoreCPUs(t *testing.T) {
	cfg, _, err := config.Load("cpuset-attach", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.VM.CPUs = 2
	cfg.Selftests.Binaries = []string{"test_cpuset", "test_cpuset_prs.sh"}
	_, err = Resolve(cfg)
	if err == nil || !strings.Contains(err.Error(), "test_cpuset_prs.sh needs at least 8 vCPUs and vm.cpus is 2") || !strings.Contains(err.Error(), "cpuset-partitions") {
		t.Fatalf("err = %v", err)
	}
	cfg.Selftests.Repetitions = 0 // the gate is off: nothing to refuse
	if _, err := Resolve(cfg); err != nil {
		t.Fatalf("gate off: %v", err)
	}
	cfg, _, err = config.Load("cpuset-partitions", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(cfg); err != nil {
		t.Fatalf("cpuset-partitions: %v", err)
	}
	if strings.Join(cfg.Selftests.Binaries, " ") != "test_cpuset_prs.sh" || cfg.VM.CPUs != 8 {
		t.Fatalf("cpuset-partitions: binaries %v, %d vCPUs", cfg.Selftests.Binaries, cfg.VM.CPUs)
	}
}

// Variant finds a measured variant by name, and nil for one not measured.
func TestSelectionVariant(t *testing.T) {
	a, b := &patches.Variant{Name: "a"}, &patches.Variant{Name: "b"}
	sel := &Selection{Variants: []*patches.Variant{a, b}}
	if sel.Variant("b") != b || sel.Variant("a") != a {
		t.Error("a measured variant not found by its name")
	}
	if sel.Variant("c") != nil {
		t.Error("a variant not measured was found")
	}
}

// Select with patches is quick mode, named after the workload unless the
// experiment was named; an invalid configuration is the user's to fix.
func TestSelect(t *testing.T) {
	patch := filepath.Join(t.TempDir(), "0001-x.patch")
	diff := "From: Jane <j@example.org>\nSubject: [PATCH] x\n\n---\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n"
	if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, named := range []bool{false, true} {
		cfg, _, err := config.Load("", nil)
		if err != nil {
			t.Fatal(err)
		}
		before := cfg.Experiment
		sel, err := Select(cfg, []string{patch}, named)
		if err != nil {
			t.Fatal(err)
		}
		want := "quick-" + cfg.Workload.Name
		if named {
			want = before
		}
		if sel.Family.Name != QuickFamily || len(sel.Variants) != 2 || cfg.Experiment != want {
			t.Errorf("named %v: family %s, %d variants, experiment %s (want %s)", named, sel.Family.Name, len(sel.Variants), cfg.Experiment, want)
		}
	}
	cfg, _, _ := config.Load("", nil)
	cfg.Repetitions = -1
	if _, err := Select(cfg, nil, false); !usage.Is(err) {
		t.Fatalf("repetitions -1: %v, want a usage error", err)
	}
}

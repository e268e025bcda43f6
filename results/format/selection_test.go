package format

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/patches"
)

// A dry run shows each variant's role, source, planned kernel (with the
// harness under it) and patches with their mail headers.
func TestWriteSelection(t *testing.T) {
	fix := &patches.Patch{Name: "0001-fix.patch", Subject: "rstat: fix", Author: "Jane Dev <jane@example.org>", MessageID: "fix.1@example.org", Files: []string{"kernel/cgroup/rstat.c", "include/linux/cgroup.h"}}
	harness := []*patches.Patch{{Name: "harness-1.patch"}, {Name: "harness-2.patch"}}
	s := Selection{Experiment: "mine", Family: "quick", Description: "base   against\n base + the series", Workload: "rstat", Repetitions: 4, CPUs: 2,
		Variants: []SelectedVariant{
			{Name: "base", Baseline: true, Source: "the configured base", Kernel: &PlannedKernel{Source: "linux-6.12.tar.xz", Key: "k1", Cached: true}},
			{Name: "patched", Source: "ref topic of /src/linux", Patches: []*patches.Patch{fix}, Cmdline: "nosmt", Kernel: &PlannedKernel{Source: "/src/linux@topic", Key: "k2", Harness: harness}},
		}}
	var b strings.Builder
	WriteSelection(&b, s)
	want := `experiment mine: family quick, workload rstat, 4 repetition(s) per variant, 2 vCPUs
  base against base + the series

base (baseline): the configured base
  source: linux-6.12.tar.xz
  kernel: k1 (cached)

patched (candidate): ref topic of /src/linux + 1 patch(es), cmdline "nosmt"
  source: /src/linux@topic
  kernel: k2 (to build)
  harness: harness-1.patch, harness-2.patch (vm.max_cpus > vm.cpus)
  1. 0001-fix.patch
     "rstat: fix" by Jane Dev <jane@example.org> <fix.1@example.org>
     files: kernel/cgroup/rstat.c include/linux/cgroup.h
`
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	// kregress config shows no kernels: nothing was planned.
	s.Variants[0].Kernel, s.Variants[1].Kernel = nil, nil
	b.Reset()
	WriteSelection(&b, s)
	if strings.Contains(b.String(), "kernel:") || !strings.Contains(b.String(), "patched (candidate)") {
		t.Fatalf("without plans:\n%s", b.String())
	}
}

func TestWriteDebugPlans(t *testing.T) {
	var b strings.Builder
	WriteDebugPlans(&b, "auto", []string{"lockdep.config", "atomic.config"}, []DebugKernel{{Variant: "base", Kernel: PlannedKernel{Key: "d1", Cached: true}}, {Variant: "patched", Kernel: PlannedKernel{Key: "d2"}}})
	want := "\ndebug pass (debug.pass auto): every variant again with lockdep.config, atomic.config, one boot each\n  base: kernel d1 (cached)\n  patched: kernel d2 (to build)\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

func TestWriteKnownSelftest(t *testing.T) {
	var b strings.Builder
	WriteKnownSelftest(&b, "test_core/test_cgcore_lesser_ns_open", "needs a user namespace", false)
	WriteKnownSelftest(&b, "test_cpu/test_cpucg_max", "timing", true)
	want := "test_core/test_cgcore_lesser_ns_open\n    needs a user namespace\ntest_cpu/test_cpucg_max (flaky: fails some of the time)\n    timing\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
}

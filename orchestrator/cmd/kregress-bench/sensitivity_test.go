package main

import (
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
)

// The null comparison measures the sensitive experiment's baseline twice,
// under two names, with the baseline's patches on both sides.
func TestSameKernelTwice(t *testing.T) {
	cfg, _, err := config.Load(sensitiveExperiment, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.VM.CPUs != 1 || !cfg.VM.ICountRequired() {
		t.Fatalf("%s: %d vCPUs, clock %q; the sensitivity figures are about one vCPU under icount", sensitiveExperiment, cfg.VM.CPUs, cfg.VM.Clock)
	}
	sel, err := variants.Resolve(cfg)
	if err != nil {
		t.Fatal(err)
	}
	null, err := sameKernelTwice(sel)
	if err != nil {
		t.Fatal(err)
	}
	if null.Family.Baseline != "a" || len(null.Variants) != 2 || null.Variants[0].Name != "a" || null.Variants[1].Name != "b" {
		t.Fatalf("null selection: baseline %q, %d variants", null.Family.Baseline, len(null.Variants))
	}
	base := sel.Variant(sel.Family.Baseline).Patches
	for _, v := range null.Variants {
		if len(v.Patches) != len(base) || len(v.Files) == 0 && len(base) > 0 {
			t.Errorf("%s: patches %v, want the baseline's %v", v.Name, v.Patches, base)
		}
	}
	if sel.Family.Baseline == "a" || sel.Variants[0].Name == "a" {
		t.Error("the experiment's own selection was renamed")
	}
}

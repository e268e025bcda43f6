package patches

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestEmbeddedManifest(t *testing.T) {
	m, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Family("rstat")
	if err != nil {
		t.Fatal(err)
	}
	names := f.VariantNames()
	if names[0] != "stock" {
		t.Fatalf("baseline not first: %v", names)
	}
	for _, want := range []string{"per-cpu-relock", "every-n-1", "every-n-8", "every-n-20", "every-n-32", "lock-outside-loop"} {
		if _, err := f.Variant(want); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := f.Variant("every-n-20"); v.Cmdline != "cgroup_rstat_relock_every=20" || len(v.Expect) != 1 {
		t.Fatalf("every-n-20: %+v", v)
	}
	stock, _ := f.Variant("stock")
	// The variant's own patch; the harness is the family's, for the
	// pipeline to put under every variant when an experiment needs it.
	if len(stock.Files) != 1 || stock.Files[0].Files[0] != "kernel/cgroup/rstat.c" || len(stock.Files[0].SHA256) != 64 {
		t.Fatalf("stock patches %+v", stock.Files)
	}
	if len(f.Harness) != 1 || f.Harness[0].Name != "harness/0001-hotplug-lapics-as-possible-cpus.patch" {
		t.Fatalf("harness %+v", f.Harness)
	}
	if _, err := f.Variant("nope"); err == nil || !strings.Contains(err.Error(), "per-cpu-relock") {
		t.Fatalf("unknown variant error should list the known ones: %v", err)
	}
	if _, err := m.Family("nope"); err == nil || !strings.Contains(err.Error(), "rstat") {
		t.Fatalf("unknown family: %v", err)
	}
}

func TestManifestErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"manifest.yaml": {Data: []byte("families:\n  f:\n    workload: w\n    baseline: a\n    variants:\n      a:\n        patches: [f/x.patch]\n")},
		"f/x.patch":     {Data: []byte("--- a/x\n+++ b/x\n")},
	}
	if _, err := LoadFS(fsys); err == nil || !strings.Contains(err.Error(), "What:") {
		t.Fatalf("patch without header accepted: %v", err)
	}
	fsys["manifest.yaml"] = &fstest.MapFile{Data: []byte("families:\n  f:\n    workload: w\n    baseline: zz\n    variants:\n      a: {}\n")}
	if _, err := LoadFS(fsys); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Fatalf("missing baseline accepted: %v", err)
	}
	fsys["manifest.yaml"] = &fstest.MapFile{Data: []byte("families:\n  f:\n    workload: w\n    baselin: a\n")}
	if _, err := LoadFS(fsys); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("typo in manifest: %v", err)
	}
}

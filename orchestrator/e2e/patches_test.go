package e2e

import (
	"context"
	"testing"

	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/patches"
)

// TestEveryPatchAppliesToDebianBase applies every variant's patch series
// of every family that declares the default base's kernel series
// (Debian's linux-source-6.12) to it; a family for another series (such
// as cpuset-6.1) is for another tree and is only counted.
func TestEveryPatchAppliesToDebianBase(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the unpacked Debian kernel source")
	}
	pristine, _ := pristineTree(t)
	man, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	version, err := kernel.TreeVersion(pristine)
	if err != nil {
		t.Fatal(err)
	}
	base := patches.Series{Major: version.Major, Minor: version.Minor}
	n, other := 0, 0
	for _, fname := range man.FamilyNames() {
		fam := man.Families[fname]
		if !fam.Kernels.Fits(base) {
			other++
			continue
		}
		for _, vname := range fam.VariantNames() {
			v := fam.Variants[vname]
			series := append(append([]*patches.Patch(nil), fam.Harness...), v.Files...)
			if err := kernel.CheckApplies(context.Background(), pristine, series, 0); err != nil {
				t.Errorf("%s/%s: %v", fname, vname, err)
			}
			n += len(series)
		}
	}
	if n == 0 {
		t.Fatal("no patch checked")
	}
	t.Logf("%d patch applications checked on %s; %d famil(ies) declare other kernels", n, version, other)
}

package e2e

import (
	"context"
	"testing"

	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/patches"
)

// TestEveryPatchAppliesToDebianBase applies every variant's patch series
// of every family to the default base (Debian's linux-source-6.12).
func TestEveryPatchAppliesToDebianBase(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the unpacked Debian kernel source")
	}
	pristine, _ := pristineTree(t)
	man, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fname := range man.FamilyNames() {
		fam := man.Families[fname]
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
	t.Logf("%d patch applications checked", n)
}

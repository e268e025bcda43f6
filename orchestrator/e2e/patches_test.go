package e2e

import (
	"context"
	"os"
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

// TestHarnessAppliesToEveryDebianTree applies the harness patches (put
// under every variant when vm.max_cpus > vm.cpus) to each Debian kernel
// tree a run can be pointed at: 6.12, the default base, and 6.1, the
// second kernel of `make test` (unpacked once into the build cache, as
// TestDebian61 uses it). The harness's one hunk has context both trees
// share; a version-specific hunk would be refused on 6.1 before any build.
func TestHarnessAppliesToEveryDebianTree(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the unpacked Debian kernel sources")
	}
	man, err := patches.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Harness) == 0 {
		t.Fatal("no harness patch in the manifest")
	}
	var harness []*patches.Patch
	for _, f := range man.Families {
		harness = f.Harness // every family has the manifest's harness
		break
	}
	for _, pkg := range []string{"linux-source-6.12", "linux-source-6.1"} {
		src := kernel.DebianSource{Package: pkg}
		if _, err := os.Stat(src.Tarball()); err != nil {
			t.Fatalf("%s: %v (make test-deps installs it)", pkg, err)
		}
		b := &kernel.Builder{CacheDir: cacheDir()}
		tree, _, err := b.Pristine(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if err := kernel.CheckApplies(context.Background(), tree, harness, 0); err != nil {
			t.Errorf("%s: %v", pkg, err)
		}
	}
}

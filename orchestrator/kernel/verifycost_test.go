package kernel

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestVerifyCostOnRealTree times compareTree on a real kernel tree when
// KREGRESS_VERIFY_TREES="pristine:tree" names one (tree a cp -al copy of
// pristine). It reports the time; it asserts only that the copy compares
// equal, never a duration.
func TestVerifyCostOnRealTree(t *testing.T) {
	spec := os.Getenv("KREGRESS_VERIFY_TREES")
	if spec == "" {
		t.Skip("KREGRESS_VERIFY_TREES=pristine:tree not set")
	}
	pristine, tree, _ := strings.Cut(spec, ":")
	for i := 0; i < 3; i++ {
		start := time.Now()
		diffs, err := compareTree(pristine, tree, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(diffs) != 0 {
			t.Fatalf("copy differs: %v", diffs[:min(5, len(diffs))])
		}
		n, _ := pristineEntries(pristine)
		t.Logf("run %d: compareTree over %d entries: %v", i, n, time.Since(start))
	}
}

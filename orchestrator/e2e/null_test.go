package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNullComparison boots the same kernel as two variants, 8 + 8 cells,
// and asks for the CI verdict: with nothing changed there must be no
// regression (exit 0). The statistics allow a false alarm in about 2.5%
// of such runs (the README's null simulation); a failure here is worth a
// look at the printed table, not a retry.
func TestNullComparison(t *testing.T) {
	if testing.Short() {
		t.Skip("boots 16 guests (run `make test`)")
	}
	bin := binDir(t)
	dir := t.TempDir()
	exp := filepath.Join(dir, "null.yaml")
	os.WriteFile(exp, []byte(`experiment: e2e-null
family: same
families:
  same:
    workload: rstat
    baseline: a
    variants:
      a: {}
      b: {}
repetitions: 8
`+bisectWorkload), 0o644)
	code, out := runKregress(t, bin, t.TempDir(), "run", "-c", exp, "--fail-on-regression")
	t.Logf("null comparison, exit %d:\n%s", code, out)
	if code != 0 {
		t.Fatalf("the same kernel against itself, 8+8: exit %d, want 0 (no regression)", code)
	}
	if !strings.Contains(out, "b vs a") || !strings.Contains(out, "8+8") {
		t.Fatal("no 8+8 comparison printed")
	}
}

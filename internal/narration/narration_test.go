package narration

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// What narrates and what defines: the rule must catch the first kind and
// let the second through, or it proves nothing.
func TestNarrates(t *testing.T) {
	for text, want := range map[string]bool{
		"A CI run on 2026-12-03 saw the flake twice.":                         true,
		"the night took 41 s on the development machine":                      true,
		"measured: 12.5% slower with the patch":                               true,
		"a cold build took about 14 min":                                      true,
		"builds in 300 s wall on an idle host":                                true,
		"the others saw 3x more boots":                                        true,
		"the metric measured by the workload, in its unit":                    false,
		"polls at most every 500 ms":                                          false,
		"the smallest change found with 80% power":                            false,
		"a run that took the lock is measured again":                          false,
		"Date is the day it was measured (YYYY-MM-DD).":                       false,
		"a bare -o FILE took -f's format":                                     false,
		"how long the teardown took, and that held the lock for 2 s at most":  false,
		"(at a 5% rate it would have failed with probability 0.92)":           false,
		"the calibration's rows (docs/calibration.md) hold what was measured": false,
		"Gone says whether pid is dead within 10 s. A kill is asynchronous":   false,
		"the memcg flusher holds the rstat lock every 2 s; a window of 4 s":   false,
		"WithDefaults fills what a declaration may leave out: 5 runs, a 60s":  false,
		"measured 12 s": true,
		"A date in a fixture: 2025-12-01 plus n minutes":                        true,
		"the bench measured every figure on the page (docs/benchmarks.md)":      false,
		"kregress-bench timed the first run at 95 s":                            true,
		"reruns compile nothing":                                                false,
		"observed 2 times in the nightly's log":                                 true,
		"a reviewer saw 4% of the boots fail":                                   true,
		"the smallest change seen with 80% power":                               false,
		"the row's step is 10%, the culprit drawn uniformly":                    false,
		"the kernel's report, seen once in 5 boots, is flagged only when twice": false,
	} {
		if got := Narrates(text); got != want {
			t.Errorf("Narrates(%q) = %v, want %v", text, got, want)
		}
	}
}

// The module's non-test Go files hold at most Budget comments that carry
// a date or a measured figure (each is named when there are more).
func TestModuleCommentsDefineNotNarrate(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	testfile.ModuleGoFiles(t, root, parser.ParseComments|parser.SkipObjectResolution, func(rel string, _ *token.FileSet, f *ast.File) {
		for _, c := range Comments(f) {
			found = append(found, fmt.Sprintf("%s: %s", rel, c))
		}
	})
	t.Logf("%d of at most %d comments carry a date or a measured figure", len(found), Budget)
	for _, c := range found {
		t.Log(c)
	}
	if len(found) > Budget {
		t.Errorf("%d comments carry a date or a measured figure, at most %d may: say what the code does and why; put the figure in docs/, the history in the commit message:\n%s", len(found), Budget, strings.Join(found, "\n"))
	}
}

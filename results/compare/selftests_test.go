package compare

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare/comparetest"
)

// A test that passes in one repetition and fails in another is flaky:
// both outcomes are kept, and differ from a baseline that always passed.
func TestSelftestFlakyOutcomes(t *testing.T) {
	a := comparetest.WithSelftests(comparetest.Res("x", results.StatusOK, 1, 1, ""), "pass")
	b := comparetest.WithSelftests(comparetest.Res("x", results.StatusOK, 1, 1, ""), "fail")
	set := selftestSet([]*results.Result{a, b})
	if set.Runs != 2 || set.Outcomes["test_core/test_cgcore_populated"] != "fail/pass" {
		t.Fatalf("set %+v", set)
	}
}

// Only new failures flag: a candidate that fixes a test, or changes a
// skip into a pass, is reported but passes the gate; a new failure in one
// boot of two is shown, not flagged, until another boot confirms it.
func TestSelftestGateFlagsOnlyNewFailures(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 2; i++ {
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("stock", results.StatusOK, 100, 40, "x"), "fail", "skip", "fail"))
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("fixer", results.StatusOK, 100, 40, "x"), "pass", "pass", "fail"))
		flaky := "pass"
		if i == 1 {
			flaky = "error"
		}
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("flaky", results.StatusOK, 100, 40, "x"), "fail", flaky, "fail"))
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("broken", results.StatusOK, 100, 40, "x"), "fail", "error", "fail"))
	}
	d, err := Compare(rs, "stock", Options{})
	if err != nil {
		t.Fatal(err)
	}
	flags := d.SelftestFlags()
	if len(flags) != 1 || !strings.HasPrefix(flags[0], "broken: 1 new selftest failure(s)") || !strings.Contains(flags[0], "test_cpuset/test_cpuset_perms_object_allow") {
		t.Fatalf("flags %q", flags)
	}
	if un := d.SelftestUnconfirmed(); len(un) != 1 || un[0] != "flaky: 1 new selftest failure(s) not yet confirmed in another boot: test_cpuset/test_cpuset_perms_object_allow (failed in 1 of 2 boot(s))" {
		t.Fatalf("unconfirmed %q", un)
	}
	fixes := d.SelftestFixes()
	if len(fixes) != 1 || fixes[0] != "fixer: test_core/test_cgcore_populated fail -> pass" {
		t.Fatalf("fixes %q", fixes)
	}
	if len(d.Failing()) != 1 {
		t.Fatalf("failing %q", d.Failing())
	}
}

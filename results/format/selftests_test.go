package format_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

func TestSelftestGate(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 3; i++ {
		base := comparetest.Res("stock", results.StatusOK, 100, 40, "x")
		same := comparetest.Res("same", results.StatusOK, 100, 40, "x")
		broken := comparetest.Res("broken", results.StatusOK, 100, 40, "x")
		none := comparetest.Res("none", results.StatusOK, 100, 40, "x")
		if i < 2 { // selftests run in the first two repetitions only
			comparetest.WithSelftests(base, "pass", "pass", "skip")
			comparetest.WithSelftests(same, "pass", "pass", "skip")
			comparetest.WithSelftests(broken, "pass", "fail", "timeout")
		}
		rs = append(rs, base, same, broken, none)
	}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch := d.SelftestChanges["same"]; len(ch) != 0 {
		t.Fatalf("identical outcomes flagged: %+v", ch)
	}
	want := []compare.SelftestChange{
		{Test: "test_cpuset/test_cpuset_perms_object_allow", Base: "pass", Cand: "fail", Kind: compare.NewFailure, FailedBoots: 2, Boots: 2},
		{Test: "test_kmem/(binary)", Base: "skip", Cand: "timeout", Kind: compare.NewFailure, FailedBoots: 2, Boots: 2},
	}
	if got := d.SelftestChanges["broken"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("broken: got %+v, want %+v", got, want)
	}
	// A variant whose selftests never produced a result is flagged too.
	if got := d.SelftestChanges["none"]; len(got) != 1 || got[0].Test != "(all)" || got[0].Cand != "no result" {
		t.Fatalf("none: %+v", got)
	}
	flags := d.SelftestFlags()
	if len(flags) != 2 || !strings.HasPrefix(flags[0], "broken: 2 new selftest failure(s) against stock") {
		t.Fatalf("flags %v", flags)
	}
	var tbl bytes.Buffer
	format.WriteDiff(&tbl, d, format.Table)
	for _, s := range []string{"selftests (correctness gate):", "stock                3 tests in 2 run(s): 2 pass, 1 skip",
		"same                 same outcomes as stock", "broken               DIFFERS from stock:",
		"test_cpuset/test_cpuset_perms_object_allow: pass -> fail (NEW FAILURE in 2 of 2 boots)", "FLAGGED by the selftest gate: broken"} {
		if !strings.Contains(tbl.String(), s) {
			t.Fatalf("table lacks %q:\n%s", s, tbl.String())
		}
	}
	var md bytes.Buffer
	format.WriteDiff(&md, d, format.Markdown)
	if !strings.Contains(md.String(), "**differs:** `test_cpuset/test_cpuset_perms_object_allow` pass → fail") {
		t.Fatalf("markdown:\n%s", md.String())
	}
	var js bytes.Buffer
	if err := format.WriteDiff(&js, d, format.JSON); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		SelftestChanges map[string][]compare.SelftestChange `json:"selftest_changes"`
	}
	if err := json.Unmarshal(js.Bytes(), &parsed); err != nil || len(parsed.SelftestChanges["broken"]) != 2 {
		t.Fatalf("json: %v %s", err, js.String())
	}
}

// TestKnownFailures: a failure with a diagnosed reason is known, one
// without is unexplained, a known one that passes is stale; the gate
// still flags the candidate's new failure of a test that is known to
// fail nowhere else.
func TestKnownFailures(t *testing.T) {
	rs := comparetest.GateRuns([]string{"fail", "fail", "pass"}, []string{"fail", "fail", "fail"})
	known := map[string]compare.KnownFailure{"test_core/test_cgcore_populated": {Reason: "why"}, "test_kmem/(binary)": {Reason: "why too"}}
	d, err := compare.Compare(rs, "stock", compare.Options{KnownFailures: known})
	if err != nil {
		t.Fatal(err)
	}
	st := d.Variants[0].Selftests
	if !reflect.DeepEqual(st.Known, []string{"test_core/test_cgcore_populated"}) || !reflect.DeepEqual(st.Unexplained, []string{"test_cpuset/test_cpuset_perms_object_allow"}) || !reflect.DeepEqual(st.Stale, []string{"test_kmem/(binary)"}) {
		t.Fatalf("baseline: known %v unexplained %v stale %v", st.Known, st.Unexplained, st.Stale)
	}
	if flags := d.SelftestFlags(); len(flags) != 1 || !strings.Contains(flags[0], "test_kmem/(binary)") {
		t.Fatalf("gate: %v", flags)
	}
	var b bytes.Buffer
	format.WriteDiff(&b, d, format.Table)
	for _, want := range []string{"of the failures, 1 known", "1 unexplained: test_cpuset/test_cpuset_perms_object_allow", "known failures that passed here (expectation out of date?): test_kmem/(binary)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestKnownFlaky: a test known to be flaky on every kernel is neither
// stale when it passes nor flagged when the candidate fails it; the
// change is still shown.
func TestKnownFlaky(t *testing.T) {
	rs := comparetest.GateRuns([]string{"pass", "pass", "pass"}, []string{"pass", "pass", "fail"})
	known := map[string]compare.KnownFailure{"test_kmem/(binary)": {Reason: "races", Flaky: true}}
	d, err := compare.Compare(rs, "stock", compare.Options{KnownFailures: known})
	if err != nil {
		t.Fatal(err)
	}
	if st := d.Variants[0].Selftests; len(st.Stale) != 0 {
		t.Errorf("a flaky test that passed is called stale: %v", st.Stale)
	}
	if flags := d.SelftestFlags(); len(flags) != 0 {
		t.Errorf("a flaky test flagged the candidate: %v", flags)
	}
	var b bytes.Buffer
	format.WriteDiff(&b, d, format.Table)
	if !strings.Contains(b.String(), "test_kmem/(binary): pass -> fail (known flaky on this guest: not flagged)") {
		t.Errorf("the change is not shown:\n%s", b.String())
	}
	// Without the flaky mark the same runs are flagged.
	d, err = compare.Compare(rs, "stock", compare.Options{KnownFailures: map[string]compare.KnownFailure{"test_kmem/(binary)": {Reason: "races"}}})
	if err != nil {
		t.Fatal(err)
	}
	if flags := d.SelftestFlags(); len(flags) != 1 {
		t.Errorf("flags %v, want one", flags)
	}
}

// A test that failed and then passed on its binary's rerun in the same
// boot is flaky: shown (in the counts, the set's Flaky list and the
// change against a baseline that passed), never flagged, and a candidate
// whose test fails on both runs still is.
func TestSelftestFlakyOnRerunNotFlagged(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 2; i++ {
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("stock", results.StatusOK, 100, 40, "x"), "pass", "pass"))
		flake := "pass"
		if i == 0 {
			flake = agentproto.SelftestFlaky
		}
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("flaky", results.StatusOK, 100, 40, "x"), flake, "pass"))
		rs = append(rs, comparetest.WithSelftests(comparetest.Res("broken", results.StatusOK, 100, 40, "x"), "pass", "fail"))
	}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	flags := d.SelftestFlags()
	if len(flags) != 1 || !strings.HasPrefix(flags[0], "broken:") {
		t.Fatalf("flags %q, want only broken's", flags)
	}
	var flaky *compare.Variant
	for i := range d.Variants {
		if d.Variants[i].Name == "flaky" {
			flaky = d.Variants[i]
		}
	}
	if flaky == nil {
		t.Fatalf("no variant flaky in %+v", d.Variants)
	}
	if !slices.Equal(flaky.Selftests.Flaky, []string{"test_core/test_cgcore_populated"}) || flaky.Selftests.Counts() != "1 pass, 1 flaky/pass" {
		t.Fatalf("flaky set %+v (counts %q)", flaky, flaky.Selftests.Counts())
	}
	ch := d.SelftestChanges["flaky"]
	if len(ch) != 1 || ch[0].Kind != compare.Changed || ch[0].Cand != "flaky/pass" {
		t.Fatalf("changes %+v", ch)
	}
	var out strings.Builder
	format.WriteDiff(&out, d, format.Table)
	if !strings.Contains(out.String(), "passed when rerun in the same boot (flaky, not flagged): test_core/test_cgcore_populated") {
		t.Fatalf("table:\n%s", out.String())
	}
}

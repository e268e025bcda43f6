package bisect

import (
	"reflect"
	"strings"
	"testing"
)

// A commit measured between the endpoints says the range holds another
// change: before it when it lies before the culprit, after it when
// after; with no culprit, on both sides of it.
func TestNoteMoreChanges(t *testing.T) {
	cs := commits(8)
	between := func(i int) Step {
		return Step{Commit: cs[i], Index: i, Verdict: Undecided, Test: &Comparison{Outcome: Between}}
	}
	for _, tc := range []struct {
		name    string
		culprit string
		steps   []Step
		want    [][2]string
	}{
		{"none between", "c5", []Step{{Commit: "c4", Index: 4, Verdict: Good}}, nil},
		{"between before the culprit", "c5", []Step{between(3)}, [][2]string{{"c0", "c3"}}},
		{"between after the culprit", "c2", []Step{between(6)}, [][2]string{{"c6", "c8"}}},
		{"no culprit", "", []Step{between(4)}, [][2]string{{"c0", "c4"}, {"c4", "c8"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{Culprit: tc.culprit, Steps: tc.steps}
			noteMoreChanges(res, cs)
			if tc.want == nil {
				if res.MoreChanges != nil {
					t.Fatalf("said %s", res.MoreChanges)
				}
				return
			}
			if res.MoreChanges == nil || !reflect.DeepEqual(res.MoreChanges.Remaining, tc.want) || !strings.Contains(res.MoreChanges.String(), "still to bisect") {
				t.Fatalf("more changes %+v, want remaining %v", res.MoreChanges, tc.want)
			}
			sum := Summarize(1, &Spec{Names: cs, Metric: "m", GitTree: "/src/linux", Good: "c0", Bad: "c8"}, res, nil)
			for _, r := range tc.want {
				if !strings.Contains(sum.MoreChanges, "--good "+r[0]+" --bad "+r[1]+" --metric m") {
					t.Fatalf("no command for %v in %q", r, sum.MoreChanges)
				}
			}
		})
	}
}

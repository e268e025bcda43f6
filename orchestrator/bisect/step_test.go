package bisect

import (
	"strings"
	"testing"
)

// bisect step refuses what it cannot measure before opening the store:
// a missing endpoint, metric or tree, a --repetitions that does not read,
// and looks too small for alpha.
func TestStepRequestCheck(t *testing.T) {
	ok := StepRequest{Good: "g", Bad: "b", Metric: "m", RepsText: RepsString(DefaultReps), Alpha: 0.05}
	if err := ok.Check("/linux"); err != nil || len(ok.reps) != len(DefaultReps) {
		t.Fatalf("a complete request: %v (reps %v)", err, ok.reps)
	}
	for _, c := range []struct {
		edit func(r *StepRequest)
		tree string
		want string
	}{
		{func(r *StepRequest) { r.Metric = "" }, "/linux", "give --good, --bad, --metric and --kernel.git-tree; --repetitions as " + RepsString(DefaultReps)},
		{func(r *StepRequest) { r.Good = "" }, "/linux", "give --good"},
		{func(*StepRequest) {}, "", "give --good"},
		{func(r *StepRequest) { r.RepsText = "4,x" }, "/linux", "give --good"},
		{func(r *StepRequest) { r.Alpha = 0 }, "/linux", "--alpha 0"},
		{func(r *StepRequest) { r.RepsText = "1" }, "/linux", "--looks 1"},
	} {
		r := ok
		c.edit(&r)
		if err := r.Check(c.tree); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v in %q: %v, want %q", r, c.tree, err, c.want)
		}
	}
}

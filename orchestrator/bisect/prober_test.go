package bisect

import (
	"sort"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
)

// A step's look with one endpoint becomes a run of exactly the step and
// that endpoint (the pipeline boots what the search asked for, as the
// simulator does).
func TestProberRunsTheAskedPoints(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &PipelineProber{Cfg: cfg, Points: map[string]Point{"c0": {Ref: "v1"}, "c4": {Ref: "v2"}, "c8": {Ref: "v3"}}}
	for _, tc := range []struct {
		points map[string]string
		want   []string
	}{
		{map[string]string{stepVariant: "c4", goodVariant: "c0"}, []string{"good:v1", "step:v2"}},
		{map[string]string{stepVariant: "c4", badVariant: "c8"}, []string{"bad:v3", "step:v2"}},
		{map[string]string{stepVariant: "c4", goodVariant: "c0", badVariant: "c8"}, []string{"bad:v3", "good:v1", "step:v2"}},
	} {
		c, sel, err := p.config(tc.points, 3)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range sel.Variants {
			got = append(got, v.Name+":"+v.Ref)
		}
		sort.Strings(got)
		if c.Repetitions != 3 || len(got) != len(tc.want) {
			t.Fatalf("%v: reps %d, variants %v, want %v", tc.points, c.Repetitions, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("%v: variants %v, want %v", tc.points, got, tc.want)
			}
		}
	}
}

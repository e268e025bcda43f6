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

// A metric bisect's looks run no selftest gate (its decision reads one
// metric); a crash bisect's keep the experiment's gate, which its
// decision counts.
func TestMetricBisectRunsNoSelftests(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Selftests.Repetitions == 0 {
		t.Fatal("the default experiment runs no selftests: this test would prove nothing")
	}
	points := map[string]Point{"c0": {Ref: "v1"}, "c8": {Ref: "v3"}}
	for _, crash := range []bool{false, true} {
		p := &PipelineProber{Cfg: cfg, Points: points, Crash: crash}
		c, _, err := p.config(map[string]string{goodVariant: "c0", badVariant: "c8"}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: cfg.Selftests.Repetitions}[crash]; c.Selftests.Repetitions != want {
			t.Errorf("crash=%v: selftests.repetitions %d, want %d", crash, c.Selftests.Repetitions, want)
		}
	}
	if cfg.Selftests.Repetitions == 0 {
		t.Error("the prober changed the experiment's own config")
	}
}

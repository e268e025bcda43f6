package bisect

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// metricsProber stores every boot as a cell reporting three metrics: m
// (what the bisect searches, 30% slower from c5), same (m doubled: the
// same change) and elsewhere (30% slower from c2).
type metricsProber struct {
	*fakeProber
	store results.Store
}

func (s *metricsProber) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	smp, err := s.fakeProber.Measure(ctx, step, good, bad, reps)
	if err != nil {
		return nil, err
	}
	run := &results.Run{Experiment: "e", Family: "bisect", Baseline: "good", StartedAt: time.Now(), Status: results.RunComplete}
	if err := s.store.CreateRun(ctx, run); err != nil {
		return nil, err
	}
	n := 0
	for _, p := range []struct {
		v, c string
		xs   []float64
	}{{"step", step, smp.Step}, {"good", good, smp.Good}, {"bad", bad, smp.Bad}} {
		for _, x := range p.xs {
			n++
			other := 100 + x - s.value(idx(p.c))
			if idx(p.c) >= 2 {
				other += 30
			}
			r := &results.Result{RunID: run.ID, Variant: p.v, Repetition: n, Seq: n, Status: results.StatusOK,
				Metrics: []agentproto.Metric{{Name: "m", Value: x}, {Name: "same", Value: 2 * x}, {Name: "elsewhere", Value: other}}}
			if err := s.store.AddResult(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	smp.RunID = run.ID
	return smp, nil
}

// The other metrics of the same boots are judged at the culprit from the
// stored runs: one that changed at the culprit agrees, one that changed
// elsewhere disagrees, and says so.
func TestCheckMetrics(t *testing.T) {
	st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := &metricsProber{fakeProber: newFake(slowFrom(5), 5), store: st}
	res, err := Run(context.Background(), p, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c5" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	booted := p.measured["c5"]
	checks, err := CheckMetrics(context.Background(), st, res, Options{}, []string{"same", "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || !checks[0].Agrees || checks[1].Agrees || !strings.Contains(checks[1].String(), "elsewhere DISAGREES") {
		t.Fatalf("checks %v", checks)
	}
	if p.measured["c5"] != booted {
		t.Fatalf("checking booted again")
	}
}

// The culprit's parent was not booted because its bzImage is the same as
// a commit the search did boot: that commit's looks judge the parent, so
// a metric that moved at the culprit agrees instead of being called a
// disagreement for want of boots.
func TestCheckMetricsParentWithTheSameImage(t *testing.T) {
	st, err := store.OpenSQLite(filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p := &metricsProber{fakeProber: newFake(slowFrom(6), 5), store: st}
	p.image[4], p.image[5] = "before-the-change", "before-the-change"
	res, err := Run(context.Background(), p, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q, want c6: %v", res.Culprit, err)
	}
	if p.measured["c5"] != 0 {
		t.Fatalf("c5 was booted (%d times, all: %v): the test's premise, an unbooted parent, does not hold", p.measured["c5"], p.measured)
	}
	checks, err := CheckMetrics(context.Background(), st, res, Options{}, []string{"same"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || !checks[0].Agrees || !strings.Contains(checks[0].Why, "the same bzImage as") {
		t.Fatalf("checks %v", checks)
	}
}

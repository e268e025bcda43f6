package bisect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
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
	st := storetest.SQLite(t)
	p := &metricsProber{fakeProber: newFake(slowFrom(5), 5), store: st}
	res, err := Run(context.Background(), p, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c5" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	booted := p.measured["c5"]
	checks, err := CheckMetrics(context.Background(), st, &Spec{Names: commits(8)}, res, []string{"same", "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 2 || checks[0].Verdict() != Agrees || checks[1].Verdict() != Disagrees || !strings.Contains(checks[1].String(), "elsewhere DISAGREES") {
		t.Fatalf("checks %v", checks)
	}
	if p.measured["c5"] != booted {
		t.Fatalf("checking booted again")
	}
}

// The culprit's parent was not booted because its bzImage is the same as
// a commit the search did boot: the search's rule knows they are on one
// side (the positions between them are impossible), so a metric that
// moved at the culprit agrees instead of being called a disagreement for
// want of boots.
func TestCheckMetricsParentWithTheSameImage(t *testing.T) {
	st := storetest.SQLite(t)
	p := &metricsProber{fakeProber: newFake(slowFrom(6), 5), store: st}
	p.image[4], p.image[5] = "before-the-change", "before-the-change"
	res, err := Run(context.Background(), p, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c6" {
		t.Fatalf("culprit %q, want c6: %v", res.Culprit, err)
	}
	if p.measured["c5"] != 0 {
		t.Fatalf("c5 was booted (%d times, all: %v): the test's premise, an unbooted parent, does not hold", p.measured["c5"], p.measured)
	}
	checks, err := CheckMetrics(context.Background(), st, &Spec{Names: commits(8)}, res, []string{"same"})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != 1 || checks[0].Verdict() != Agrees || !strings.Contains(checks[0].Why, "names it") {
		t.Fatalf("checks %v", checks)
	}
}

// A metric whose boots spread far wider than the change reaches neither
// bound at the culprit: the check says it cannot tell, never DISAGREES
// (the sign of a noisy tail percentile's evidence is not a finding).
func TestCheckMetricCannotTell(t *testing.T) {
	p := newFake(slowFrom(5), 5)
	res, err := Run(context.Background(), p, commits(8), Options{}, nil, nil)
	if err != nil || res.Culprit != "c5" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	// Every point's boots alternate 1 and 1000, whatever the commit:
	// a spread no look can place.
	wide := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 1
			if i%2 == 1 {
				xs[i] = 1000
			}
		}
		return xs
	}
	noisy := func(s Step, i int) (Look, bool, error) {
		l := s.Looks[i]
		return Look{Step: wide(len(l.Step)), Good: wide(len(l.Good)), Bad: wide(len(l.Bad))}, true, nil
	}
	mc, err := CheckMetric(&Spec{Names: commits(8)}, res, "tail", noisy)
	if err != nil {
		t.Fatal(err)
	}
	if mc.Verdict() != CannotTell || mc.Agrees || !strings.Contains(mc.String(), "tail cannot tell: a search over the bisect's looks in this metric gives the culprit chance") {
		t.Fatalf("check %v", mc)
	}
	// The driver's own figures, read as another metric, agree.
	same := func(s Step, i int) (Look, bool, error) { return s.Looks[i], true, nil }
	if mc, err := CheckMetric(&Spec{Names: commits(8)}, res, "m", same); err != nil || mc.Verdict() != Agrees || !mc.Agrees {
		t.Fatalf("the driver's own figures: %v, %v", mc, err)
	}
	// A look the figures cannot give says nothing; all of them: nothing
	// to judge the culprit from.
	none := func(Step, int) (Look, bool, error) { return Look{}, false, nil }
	if mc, err := CheckMetric(&Spec{Names: commits(8)}, res, "gone", none); err != nil || mc.Verdict() != CannotTell {
		t.Fatalf("no figures: %v, %v", mc, err)
	}
}

// A check stored before the three-way agreement existed reads as it was
// called then.
func TestMetricCheckStoredBeforeAgreement(t *testing.T) {
	if v := (MetricCheck{Metric: "m", Agrees: true}).Verdict(); v != Agrees {
		t.Fatalf("stored agrees: %s", v)
	}
	if s := (MetricCheck{Metric: "m", Why: "w"}).String(); s != "m DISAGREES: w" {
		t.Fatalf("stored disagreement: %q", s)
	}
}

package diffreport

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store/storetest"
)

// goldenStore holds two complete rstat-relock runs of stock and fast,
// eight cells per variant each, their cells split over hosts a and b:
// in run 2 fast reads faster and its latency drops, in run 1 neither
// moves. Every figure is fixed, so that every rendering of a diff of
// them is too.
func goldenStore(t *testing.T) results.Store {
	t.Helper()
	s := storetest.SQLite(t)
	ctx := context.Background()
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for run, gain := range []float64{0, 300} {
		r := &results.Run{Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "fast"},
			StartedAt: started.Add(time.Duration(run) * time.Hour), Status: results.RunRunning, Config: "repetitions: 8\n"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := range 8 {
			for j, v := range r.Variants {
				reads, latency := 2400+float64(i*7%5), 40+float64(i*3%4)
				if v == "fast" {
					reads, latency = reads+gain, latency-gain/100
				}
				res := &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
					Provenance: results.Provenance{Host: []string{"a", "b"}[i%2], HostCPU: "cpu", Accel: "kvm", VCPUs: 2, CPUsOnline: 2, CPUsPossible: 2},
					Metrics: []agentproto.Metric{
						{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: reads},
						{Name: "read_latency_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: latency},
					}}
				if err := s.AddResult(ctx, res); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// started is a run's start as Describe prints it, in this machine's
// time zone: scrubbed from golden files.
var started = regexp.MustCompile(`started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d`)

// checkDiffGolden renders rep in every format of a diff and compares each
// with testdata/golden/name.FORMAT.
func checkDiffGolden(t *testing.T, name string, rep *Report) {
	t.Helper()
	for _, f := range Formats {
		out := started.ReplaceAllString(render(t, rep, format.Format(f)), "started $$STARTED")
		testfile.Golden(t, filepath.Join("testdata", "golden", name+"."+f), out)
	}
}

// A diff of one comparison (a run's two variants, or one variant of two
// runs) renders byte for byte as the golden files say, in every format.
func TestOneComparisonGolden(t *testing.T) {
	s := goldenStore(t)
	ctx := context.Background()
	opts := compare.Options{Alpha: 0.05, Primary: []string{"reads_per_sec"}}
	whole, err := Whole(ctx, s, "2", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	checkDiffGolden(t, "run2", whole)
	two, err := Two(ctx, s, s, "1/fast", "2/fast", opts, false)
	if err != nil {
		t.Fatal(err)
	}
	checkDiffGolden(t, "run2-fast-vs-run1-fast", two)
}

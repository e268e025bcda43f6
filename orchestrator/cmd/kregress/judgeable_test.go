package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/verdict"
)

// An explicit --alpha 0 (not 0.05 in silence), --alpha 1.5, and
// --extra-rounds -1 (which would measure nothing) are each a usage error (exit 2) naming the knob, before anything runs.
func TestKnobsRefusedBeforeAnythingRuns(t *testing.T) {
	store := seed(t)
	cache := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--alpha", "0", "--dry-run"}, "--alpha"},
		{[]string{"run", "--alpha", "1.5", "--dry-run"}, "--alpha"},
		{[]string{"run", "--resume", "-1", "--dry-run"}, `"--resume" flag: "-1" is not a run id`},
		// --resume 0 was read as no resume at all: a new run started.
		{[]string{"run", "--resume", "0", "--dry-run"}, `"--resume" flag: "0" is not a run id`},
		{[]string{"diff", "1", "--alpha", "0"}, "--alpha"},
		{[]string{"diff", "1", "2", "--alpha", "3"}, "--alpha"},
		{[]string{"diff", "1", "--noise-floor-pct", "reads_per_sec=Inf"}, "noise floor of reads_per_sec is +Inf%"},
		{[]string{"diff", "1", "--noise-floor-pct", "reads_per_sec=NaN"}, "noise floor of reads_per_sec is NaN%"},
		{[]string{"diff", "1", "--noise-floor-pct", "reads_per_sec=-2"}, "noise floor of reads_per_sec is -2%"},
		{[]string{"diff", "1", "--noise-floor-pct", "=2"}, "without a metric name"},
		{[]string{"diff", "1", "-f", "htm"}, `invalid argument "htm" for "-f, --format" flag: want table, markdown, json, csv, lkp or html`},
		{[]string{"nightly", "--alpha", "0", "--cache-dir", cache}, "--alpha"},
		{[]string{"nightly", "--alpha", "1.5", "--cache-dir", cache}, "--alpha"},
		{[]string{"nightly", "--extra-rounds", "-1", "--cache-dir", cache}, "--extra-rounds"},
		{[]string{"nightly", "--extra-rounds", "1000000", "--cache-dir", cache}, "--extra-rounds 1000000: want 0..10"},
		{[]string{"nightly", "--grey-upper", "0.01", "--cache-dir", cache}, "--grey-upper"},
		{[]string{"nightly", "--grey-upper", "1.5", "--cache-dir", cache}, "--grey-upper 1.5 must lie in (--alpha 0.05, 1]"},
		{[]string{"nightly", "--baseline", "-3", "--cache-dir", cache}, "--baseline -3 is not a run id"},
		{[]string{"nightly", "--keep-artifacts", "-5h", "--cache-dir", cache}, "--keep-artifacts -5h0m0s is negative"},
		{[]string{"bisect", "--resume", "-1", "--cache-dir", cache}, `"--resume" flag: "-1" is not a bisect id`},
		{[]string{"bisect", "--resume", "0", "--cache-dir", cache}, `"--resume" flag: "0" is not a bisect id`},
		{[]string{"noise", "--repetitions", "100000000", "--cache-dir", cache}, "repetitions: 100000000 is out of range 1..1000"},
	} {
		out, err := kregress(t, store, c.args...)
		if exitCodeOf(err) != 2 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q:\n%s", c.args, exitCodeOf(err), c.want, out)
		}
	}
}

// run refuses an experiment whose repetitions cannot reach alpha on its
// primary metric, naming the repetitions that would, before it builds.
func TestRunRefusesUnjudgeableRepetitions(t *testing.T) {
	store := seed(t)
	out, err := kregress(t, store, "run", "-c", "rstat-every-n", "--repetitions", "3", "--extra-rounds", "0", "--dry-run", "--cache-dir", t.TempDir())
	if exitCodeOf(err) != 2 || !strings.Contains(out, "it needs 6 repetitions") {
		t.Fatalf("3 repetitions of 6 candidates, one look: exit %d:\n%s", exitCodeOf(err), out)
	}
	// With run's default second look, 2 repetitions pool to 4 at alpha
	// split over 2 looks: still refused, naming the looks.
	out, err = kregress(t, store, "run", "-c", "rstat-every-n", "--repetitions", "2", "--dry-run", "--cache-dir", t.TempDir())
	if exitCodeOf(err) != 2 || !strings.Contains(out, "2 looks of 2 repetitions") {
		t.Fatalf("2 repetitions of 6 candidates, two looks: exit %d:\n%s", exitCodeOf(err), out)
	}
	// --gate-only judges no metric: any repetitions will do.
	if out, err := kregress(t, store, "run", "-c", "rstat-every-n", "--repetitions", "1", "--gate-only", "--dry-run", "--cache-dir", sharedDryRunCache); err != nil {
		t.Fatalf("--gate-only at 1 repetition: %v\n%s", err, out)
	}
	// seeds checks every experiment of its set before the first builds.
	out, err = kregress(t, store, "seeds", "--repetitions", "3", "--cache-dir", t.TempDir())
	if exitCodeOf(err) != 2 || !strings.Contains(out, "repetitions cannot reach alpha") {
		t.Fatalf("seeds --repetitions 3: exit %d:\n%s", exitCodeOf(err), out)
	}
	// Quick mode's one candidate at 4 boots reaches 0.029 on its primary
	// metric: accepted.
	if out, err := kregress(t, store, "run", "--repetitions", "4", "--dry-run", "--cache-dir", sharedDryRunCache); err != nil {
		t.Fatalf("4 repetitions, one candidate: %v\n%s", err, out)
	}
}

// diff RUN_A RUN_B with several variants judges them as one family, as
// run does: each metric's q is adjusted over every variant's metrics.
func TestDiffTwoRunsIsOneFamily(t *testing.T) {
	store := seed(t)
	out := mustRun(t, store, "diff", "1", "2", "-f", "json")
	// One JSON value, a part per variant pair.
	var doc struct {
		Parts []struct {
			Title       string `json:"title"`
			Comparisons map[string][]struct {
				Name   string `json:"name"`
				Family int    `json:"family"`
			} `json:"comparisons"`
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(doc.Parts) != 2 {
		t.Fatalf("%d parts, want 2:\n%s", len(doc.Parts), out)
	}
	for _, p := range doc.Parts {
		for _, ms := range p.Comparisons {
			for _, m := range ms {
				// 2 variants x 2 metrics, no primary metric in these
				// results: one family of 4.
				if m.Family != 4 {
					t.Errorf("%s: %s judged in a family of %d, want 4 (both variants together)", p.Title, m.Name, m.Family)
				}
			}
		}
	}
}

// A comparison whose primary metric cannot reach alpha is unjudged: not
// "no significant change", and exit 9 under --fail-on-regression.
func TestDiffUnjudgedExitCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := &results.Run{Experiment: "rstat-every-n", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "every-n-8"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for j, v := range []string{"stock", "every-n-8"} {
			s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
				Provenance: results.Provenance{Accel: "tcg", VCPUs: 2},
				Metrics: []agentproto.Metric{
					{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: (5 + float64(i)*0.1) * (1 + 9*float64(j))},
					{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + float64(i)},
				}})
		}
	}
	s.FinishRun(ctx, r.ID, results.RunComplete, "")
	s.Close()
	out, err := kregress(t, path, "diff", "1", "--fail-on-regression")
	if exitCodeOf(err) != int(verdict.ExitUnjudged) || !strings.Contains(out, "verdict: UNJUDGED") || strings.Contains(out, "no significant change") {
		t.Fatalf("3+3, lock hold x10: exit %d, want %d (unjudged):\n%s", exitCodeOf(err), verdict.ExitUnjudged, out)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// Workload parameters `run` refuses (readers "-4", an unknown
// parameter) need no build to refuse: `run --dry-run` refuses them too,
// with exit 2, before anything builds.
func TestDryRunRefusesBadWorkloadParams(t *testing.T) {
	store := seed(t)
	orig, err := os.ReadFile("../../config/experiments/rstat-single-reader.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(orig), `readers: "1"`) {
		t.Fatalf("the experiment no longer sets readers: update this test")
	}
	for bad, want := range map[string]string{`readers: "-4"`: "readers=-4", `bogus_param: "1"`: `unknown parameter "bogus_param"`} {
		path := filepath.Join(t.TempDir(), "exp.yaml")
		if err := os.WriteFile(path, []byte(strings.Replace(string(orig), `readers: "1"`, bad, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		cache := t.TempDir()
		out, err := kregress(t, store, "run", "-c", path, "--dry-run", "--cache-dir", cache)
		if exitCodeOf(err) != 2 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want 2 naming %s:\n%s", bad, exitCodeOf(err), want, out)
		}
		if ents, _ := os.ReadDir(cache); len(ents) != 0 {
			t.Errorf("%s: the cache was written: %v", bad, ents)
		}
	}
}

package main

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// twoNights stores two 5-boot runs of variant tip, shaped as the rstat
// workload's: the primary metric flat, reads/s 3234 -> 1179 and read
// latency p50 150 -> 503 us in every boot, eight more metrics unchanged.
func twoNights(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "kregress.db")
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(45, 3))
	for _, m := range [][2]float64{{3234, 150}, {1179, 503}} {
		r := &results.Run{Experiment: "tip", Family: "tip", Baseline: "tip", Variants: []string{"tip"}, StartedAt: time.Now(), Status: results.RunRunning, Config: "repetitions: 5\n"}
		if err := s.CreateRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			jitter := func(v float64) float64 { return v * (0.95 + 0.1*rng.Float64()) }
			res := &results.Result{RunID: r.ID, Variant: "tip", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
				Provenance: results.Provenance{Accel: "tcg", VCPUs: 2},
				Metrics: []agentproto.Metric{
					{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 6.6 * (0.7 + 0.6*rng.Float64())},
					{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: jitter(m[0])},
					{Name: "read_latency_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: jitter(m[1])},
				}}
			for _, name := range []string{"m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8"} {
				res.Metrics = append(res.Metrics, agentproto.Metric{Name: name, Unit: "us", Direction: agentproto.LowerIsBetter, Value: 100 * (0.8 + 0.4*rng.Float64())})
			}
			if err := s.AddResult(ctx, res); err != nil {
				t.Fatal(err)
			}
		}
		s.FinishRun(ctx, r.ID, results.RunComplete, "")
	}
	return path
}

// The diff of two stored 5-boot nights, reads/s -63.6% in every boot,
// said "no significant change" and exited 0 under --fail-on-regression.
// Every format now says UNJUDGED with the same words, the gate exits 9,
// and the table says that a diff cannot add boots.
func TestDiffOfTwoNightsSeenButNotJudged(t *testing.T) {
	db := twoNights(t)
	out, err := kregress(t, db, "diff", "1/tip", "2/tip", "--fail-on-regression")
	if exitCodeOf(err) != 9 {
		t.Fatalf("diff --fail-on-regression: exit %d, want 9:\n%s", exitCodeOf(err), out)
	}
	if strings.Contains(out, "no significant change") || !strings.Contains(out, "verdict: UNJUDGED") || !strings.Contains(out, "reads_per_sec -6") || !strings.Contains(out, "cannot add boots") {
		t.Fatalf("the table does not say UNJUDGED, name reads/s and say a diff cannot add boots:\n%s", out)
	}
	head := out[strings.Index(out, "verdict: ")+len("verdict: "):]
	head = head[:strings.IndexByte(head, '\n')]
	t.Logf("verdict: %s", head)
	for _, f := range []string{"markdown", "json", "html"} {
		got, err := kregress(t, db, "diff", "1/tip", "2/tip", "-f", f)
		if err != nil {
			t.Fatalf("-f %s: %v", f, err)
		}
		if strings.Contains(got, "no significant change") || !strings.Contains(got, "UNJUDGED") || !strings.Contains(got, "every boot below every baseline boot") {
			t.Errorf("-f %s does not carry the table's verdict %q:\n%s", f, head, got)
		}
	}
}

// --rule-out takes a ratio above 1 (inf: off); anything else is a usage
// error naming the flag, before any store is read.
func TestDiffRuleOutFlag(t *testing.T) {
	db := twoNights(t)
	for _, bad := range []string{"1", "0.5", "-2"} {
		out, err := kregress(t, db, "diff", "1/tip", "2/tip", "--rule-out", bad)
		if exitCodeOf(err) != 2 || !strings.Contains(out, "--rule-out") {
			t.Errorf("--rule-out %s: exit %d, want 2 naming the flag:\n%s", bad, exitCodeOf(err), out)
		}
	}
	if out, err := kregress(t, db, "diff", "1/tip", "2/tip", "--rule-out", "inf", "--fail-on-regression"); exitCodeOf(err) != 9 || !strings.Contains(out, "every boot below every baseline boot") {
		t.Errorf("--rule-out inf: the seen regression must still be UNJUDGED (exit %d):\n%s", exitCodeOf(err), out)
	}
}

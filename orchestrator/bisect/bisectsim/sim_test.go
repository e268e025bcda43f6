package bisectsim

import (
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
)

// TestExplore (KREGRESS_SIM=trials) prints the figures of a few setups.
func TestExplore(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("KREGRESS_SIM"))
	if n == 0 {
		t.Skip("set KREGRESS_SIM")
	}
	var reps []int
	for _, f := range strings.Split(os.Getenv("REPS"), ",") {
		if r, err := strconv.Atoi(f); err == nil {
			reps = append(reps, r)
		}
	}
	only := os.Getenv("ONLY")
	for _, c := range []struct {
		name  string
		drift float64
		crash float64
		chg   float64
	}{{"metric", 0, 0, 0.1}, {"drift", 0.02, 0, 0.1}, {"trend", 0.02, 0, 0.1}, {"crash30", 0, 0.3, 0}, {"crash10", 0, 0.1, 0}, {"null", 0, 0, 0}} {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		var ty Tally
		for i := 0; i < n; i++ {
			rng := rand.New(rand.NewPCG(uint64(i), 77))
			cul := 1 + rng.IntN(16)
			if c.name == "null" {
				cul = 0
			}
			p := &Prober{Rng: rng, Culprit: cul, Base: 100, Change: c.chg, CV: 0.05, Drift: c.drift, Trend: c.name == "trend", CrashRate: c.crash}
			if err := ty.Run(p, 16, bisect.Options{Crash: c.crash > 0, Reps: reps}); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("endpoint boots %.1f", float64(ty.EndBoots)/float64(ty.Trials))
		t.Logf("%-8s right %.3f wrong %.3f none %.3f boots %.1f conf %.3f", c.name, ty.RightRate(), ty.WrongRate(), ty.NoNameRate(), ty.MeanBoots(), ty.MeanConfidence())
	}
}

func TestDebugWrong(t *testing.T) {
	if os.Getenv("KREGRESS_SIM") == "" {
		t.Skip()
	}
	shown := 0
	for i := 0; i < 300 && shown < 3; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 77))
		cul := 1 + rng.IntN(16)
		p := &Prober{Rng: rng, Culprit: cul, Base: 100, Change: 0.1, CV: 0.05}
		res, _ := bisect.Run(t.Context(), p, Commits(16), bisect.Options{}, nil, nil)
		if res.Culprit != "" && res.Culprit != Commits(16)[cul] {
			shown++
			t.Logf("culprit c%d named %s", cul, res.Culprit)
			for _, s := range res.Steps {
				t.Logf("  %s %s %s", s.Commit, s.Verdict, s.Why)
			}
		}
	}
}

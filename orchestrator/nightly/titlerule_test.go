package nightly

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kregress/kregress/results"
)

// simNight is one night's cells: boots cells, each printing title (and
// crashing) with probability rate.
func simNight(rng *rand.Rand, boots int, title string, rate float64) []*results.Result {
	rs := make([]*results.Result, boots)
	for i := range rs {
		r := &results.Result{Variant: "v", Repetition: i + 1, Status: results.StatusOK}
		if rng.Float64() < rate {
			r.Status = results.StatusCrashed
			r.Findings = []results.Finding{{Kind: results.FindingPanic, Title: title, Count: 1}}
		}
		rs[i] = r
	}
	return rs
}

// simRule runs nights nights of the title rule as Night.Run applies it
// at one look (judgeTitles at alpha, then cellFailures), the history
// being the newest titleHistoryNights nights it passed (titleHistory.add,
// as Night.titleHistory counts them). clean nights first print nothing;
// then the title is printed at rate. It returns, over the nights after
// the clean ones, how many failed and how many of those had a good night
// before them, how many such nights there were, and whether the first
// of them failed.
func simRule(rng *rand.Rand, clean, nights, boots int, rate, alpha float64) (failed, failedWithHistory, withHistory int, firstFailed bool) {
	var good [][]*results.Result
	for i := range clean + nights {
		r := rate
		if i < clean {
			r = 0
		}
		tonight := simNight(rng, boots, "BUG: flaky", r)
		var h titleHistory
		for _, g := range good {
			h.add(g)
		}
		_, err := cellFailures(tonight, judgeTitles(h, tonight, alpha))
		if i >= clean {
			if err != nil {
				failed++
				firstFailed = firstFailed || i == clean
			}
			if h.Nights > 0 {
				withHistory++
				if err != nil {
					failedWithHistory++
				}
			}
		}
		if err == nil {
			good = append(good, tonight)
			if len(good) > titleHistoryNights {
				good = good[1:]
			}
		}
	}
	return failed, failedWithHistory, withHistory, firstFailed
}

// The title rule's stated error rate, through its own code over many
// simulated nights of 16 boots: a titled flake printed in at most
// maxFlakeRate of boots whose rate does not change fails a night that has
// a good history at most about alpha of the time (Fisher's test is exact
// given the counts; the history holds only the nights the rule passed,
// fewer crashes than the rest, which the margin covers up to that rate).
// A flake present from the first night is learned within a few nights
// without `baseline accept`. The power against a new title after 30 clean
// nights is logged, not asserted (it is no guarantee of the rule).
func TestTitleRuleSimulated(t *testing.T) {
	const maxFlakeRate = 0.10
	const boots = 16
	rng := rand.New(rand.NewPCG(51, 7))
	// alpha: a night of one look (--extra-rounds 0); alpha/2: each look
	// of the default two.
	for _, alpha := range []float64{0.05, 0.025} {
		for _, rate := range []float64{0.01, 0.02, 0.05, 0.10, 0.25} {
			const seqs, nights = 40, 60
			var failed, failedH, withH int
			for range seqs {
				f, fh, wh, _ := simRule(rng, 0, nights, boots, rate, alpha)
				failed, failedH, withH = failed+f, failedH+fh, withH+wh
			}
			all := float64(failed) / float64(seqs*nights)
			fa := float64(failedH) / float64(withH)
			// The guarantee, alpha, with a margin of four binomial
			// standard errors at alpha over these nights.
			bound := alpha + 4*math.Sqrt(alpha*(1-alpha)/float64(withH))
			t.Logf("level %.3g, flake at %.0f%% of boots from night 1: %.2f%% of nights failed (%d of %d), %.2f%% of those with a good history (%d of %d; bound %.2f%%); without the rule (any titled crash fails) %.1f%%",
				alpha, rate*100, all*100, failed, seqs*nights, fa*100, failedH, withH, bound*100, (1-math.Pow(1-rate, boots))*100)
			// Above maxFlakeRate the history (the nights the rule
			// passed, fewer crashes than the rest) underestimates the
			// rate: logged, no guarantee.
			if rate <= maxFlakeRate && fa > bound {
				t.Errorf("level %.3g, flake at %.0f%%: %.2f%% of nights with a good history failed (bound %.2f%%)", alpha, rate*100, fa*100, bound*100)
			}
		}
	}
	// A new title after 30 clean nights (a crash a commit brought):
	// how often its nights fail, the first and the first 20.
	for _, alpha := range []float64{0.05, 0.025} {
		for _, rate := range []float64{0.05, 0.10, 0.25, 0.50} {
			const seqs = 100
			first, all := 0, 0
			for range seqs {
				f, _, _, ff := simRule(rng, titleHistoryNights, 20, boots, rate, alpha)
				all += f
				if ff {
					first++
				}
			}
			t.Logf("level %.3g, new title at %.0f%% of boots after %d clean nights: its first night fails in %.0f%%, its first 20 nights in %.1f%%",
				alpha, rate*100, titleHistoryNights, float64(first)/seqs*100, float64(all)/(seqs*20)*100)
		}
	}
}

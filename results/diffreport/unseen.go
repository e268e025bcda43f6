package diffreport

import (
	"context"
	"fmt"
	"math"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/verdict"
)

// Unseen lists the metrics whose change diff d did not call, with the
// smallest change the latest noise run of the experiment says these
// sample sizes could see: "below what this setup can see". None without
// a noise run.
func Unseen(ctx context.Context, store results.Store, experiment string, d *compare.Diff) []string {
	cv, run := noise.LatestCV(ctx, store, experiment)
	var out []string
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			c, ok := cv[m.Name]
			if !ok || m.Verdict != verdict.NoChange {
				continue
			}
			// The same simulation as noise's MDE, at this diff's n and
			// inside its family, with the noise run's spread.
			mde := compare.MDE(compare.PowerSpec{N1: m.Base.N, N2: m.Cand.N, Sigma: math.Sqrt(math.Log1p(c * c)), Log: true, Family: m.Family, Alpha: m.Alpha, Seed: 1})
			if math.Abs(m.DeltaPct) < mde {
				out = append(out, fmt.Sprintf("%s %s: %s is below what this setup can see at n=%d+%d in a family of %d (%.0f%%, noise run %d)", v.Name, m.Name, num.Delta(m.DeltaPct), m.Base.N, m.Cand.N, m.Family, mde, run))
			}
		}
	}
	return out
}

package noise

import (
	"context"
	"math"

	"github.com/kregress/kregress/results"
)

// ExperimentPrefix names the runs of `kregress noise`: their own
// experiment ("noise:<experiment>"), so no nightly or diff takes one for
// an ordinary run.
const ExperimentPrefix = "noise:"

// LatestCV is each metric's spread between boots (its coefficient of
// variation, NaN left out) in the store's latest complete noise run of
// experiment, and that run's id; none without a store or such a run.
// What experiments and diff say a setup can see comes from here.
func LatestCV(ctx context.Context, store results.Store, experiment string) (map[string]float64, int64) {
	if store == nil {
		return nil, 0
	}
	runs, err := store.FindRuns(ctx, results.Filter{Experiment: ExperimentPrefix + experiment, Status: results.RunComplete, Limit: 1})
	if err != nil || len(runs) == 0 {
		return nil, 0
	}
	rs, err := store.Results(ctx, runs[0].ID)
	if err != nil {
		return nil, 0
	}
	cv := map[string]float64{}
	for _, m := range Analyze(rs) {
		if !math.IsNaN(m.CV) {
			cv[m.Name] = m.CV
		}
	}
	return cv, runs[0].ID
}

package nightly

import (
	"context"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

// titleHistoryRuns bounds the good nights whose kernel report titles are
// known flakes: enough boots that a title printed in a few percent of
// boots is in them, few enough that a store of years is not read.
const titleHistoryRuns = 30

// knownTitles are the kernel report titles of this experiment's newest
// titleHistoryRuns complete runs before tonight that were marked good or
// accepted and measured alike (the nights a baseline may come from),
// every variant's: a title a good kernel printed is a flake, judged as a
// rate (compare.KnowTitles), not a new signature. A store that cannot be
// read gives no history, so every title the baseline lacks is new, as
// without history.
func (n *Night) knownTitles(ctx context.Context, experiment string, tonightID int64, tonight []*results.Result) compare.KnownTitles {
	known := compare.KnownTitles{}
	runs, err := n.Store.FindRuns(ctx, results.Filter{Experiment: experiment, Status: results.RunComplete})
	if err != nil {
		return known
	}
	used := 0
	for _, run := range runs {
		if used == titleHistoryRuns {
			break
		}
		if run.ID >= tonightID {
			continue
		}
		marks, err := n.Store.Marks(ctx, run.ID)
		if err != nil || judgement(marks) == "" {
			continue
		}
		rs, err := n.Store.Results(ctx, run.ID)
		if err != nil || !alike(rs, tonight) {
			continue
		}
		known.Add(compare.TitlesOf(rs))
		used++
	}
	return known
}

// knownFlake: r failed with kernel reports, every one of them a title
// known holds. A failure without a report (a hang, a boot that never
// answered) has no title to know it by.
func knownFlake(r *results.Result, known compare.KnownTitles) bool {
	if len(r.Findings) == 0 {
		return false
	}
	for _, f := range r.Findings {
		if !known[f.Title] {
			return false
		}
	}
	return true
}

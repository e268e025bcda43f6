package bisect

import "github.com/kregress/kregress/results/compare"

// Origin is the nightly regression a bisect was handed (nightly
// --bisect), kept with the bisect so its report states what the night
// saw.
type Origin struct {
	Experiment    string  `json:"experiment"`
	NightRunIDs   []int64 `json:"night_run_ids"`
	BaselineRunID int64   `json:"baseline_run_id"`
	// Regression is the night's case as it printed it.
	Regression string `json:"regression"`
	// Change: a metric regression's figures (nil for a crash kind).
	Change *compare.Change `json:"change,omitempty"`
}

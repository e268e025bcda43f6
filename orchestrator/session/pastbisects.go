package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
)

// storedBisects is how many of the newest stored bisects the trend page
// looks through for the nights they were handed (as findBisect does).
const storedBisects = 200

// bisectReport is the name of bisect id's culprit report beside the
// night's HTML page.
func bisectReport(id int64) string { return fmt.Sprintf("bisect-%d.md", id) }

// LinkPastBisects links each red night on the night's trends to the
// stored bisect a nightly --bisect handed it (its origin names the
// night's runs, experiment, variant and metric), and to that bisect's
// report when one is in reportDir beside the page: earlier nights keep
// their links on every later page, not only the night that bisected. A
// store that cannot list its bisects links nothing; the page is still
// written.
func LinkPastBisects(ctx context.Context, store results.Store, night []*nightreport.Result, reportDir string) {
	bs, err := store.ListBisects(ctx, storedBisects)
	if err != nil {
		return
	}
	for _, b := range bs {
		var spec bisect.Spec
		if json.Unmarshal([]byte(b.Spec), &spec) != nil || spec.Crash || spec.Origin == nil || len(spec.Origin.NightRunIDs) == 0 {
			continue
		}
		href := ""
		if reportDir != "" {
			if fi, err := os.Stat(filepath.Join(reportDir, bisectReport(b.ID))); err == nil && fi.Mode().IsRegular() {
				href = bisectReport(b.ID)
			}
		}
		first := spec.Origin.NightRunIDs[0]
		for _, r := range night {
			for k := range r.Trends {
				t := &r.Trends[k]
				if t.Experiment != spec.Origin.Experiment || t.Variant != spec.Variant || t.Metric != spec.Metric || !hasNight(t, first) {
					continue
				}
				t.Bisects = append(t.Bisects, trendreport.BisectLink{RunID: first, ID: b.ID, Text: fmt.Sprintf("bisect %d (%s)", b.ID, b.Status), Href: href})
			}
		}
	}
}

// hasNight says whether t has a point for the night whose first run is id.
func hasNight(t *trendreport.Trend, id int64) bool {
	for _, p := range t.Points {
		if p.RunID == id {
			return true
		}
	}
	return false
}

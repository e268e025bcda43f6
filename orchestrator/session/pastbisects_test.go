package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store/storetest"
	"github.com/kregress/kregress/results/trendreport"
)

// A red night bisected by an earlier nightly --bisect keeps its link on
// later pages: its trend of the bisected variant and metric (not
// another's) links the stored bisect, and the bisect's report when it is
// beside the page; a crash bisect has no trend to link.
func TestLinkPastBisects(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	add := func(spec *bisect.Spec) int64 {
		data, _ := json.Marshal(spec)
		b := &results.Bisect{Experiment: "e", Status: results.RunComplete, Spec: string(data), State: "{}"}
		if err := db.CreateBisect(ctx, b); err != nil {
			t.Fatal(err)
		}
		return b.ID
	}
	origin := &bisectreport.Origin{Experiment: "e", NightRunIDs: []int64{7, 8}}
	id := add(&bisect.Spec{Experiment: "/e.yaml", Names: []string{"a", "b"}, Metric: "m1", Variant: "v", Origin: origin})
	add(&bisect.Spec{Experiment: "/e.yaml", Names: []string{"a", "b"}, Metric: "kernel failures", Crash: true, Variant: "v", Origin: origin})
	add(&bisect.Spec{Experiment: "/e.yaml", Names: []string{"a", "b"}, Metric: "m1", Variant: "v"}) // not a nightly's
	night := func() []*nightreport.Result {
		points := []trendreport.Point{{RunID: 5}, {RunID: 7, Looks: []int64{8}}, {RunID: 9}}
		return []*nightreport.Result{{Experiment: "e", Trends: []trendreport.Trend{
			{Experiment: "e", Variant: "v", Metric: "m1", Points: points},
			{Experiment: "e", Variant: "v", Metric: "m2", Points: points},
			{Experiment: "e", Variant: "w", Metric: "m1", Points: points},
		}}}
	}
	dir := t.TempDir()
	n := night()
	LinkPastBisects(ctx, db, n, dir)
	tr := n[0].Trends
	if len(tr[0].Bisects) != 1 || tr[0].Bisects[0].ID != id || tr[0].Bisects[0].RunID != 7 || tr[0].Bisects[0].Href != "" {
		t.Fatalf("m1 of v, no report beside the page: links %+v, want bisect %d on run 7 without a report", tr[0].Bisects, id)
	}
	if len(tr[1].Bisects)+len(tr[2].Bisects) != 0 {
		t.Fatalf("another metric or variant was linked: %+v, %+v", tr[1].Bisects, tr[2].Bisects)
	}
	if err := os.WriteFile(filepath.Join(dir, bisectReport(id)), []byte("# bisect\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n = night()
	LinkPastBisects(ctx, db, n, dir)
	if l := n[0].Trends[0].Bisects; len(l) != 1 || l[0].Href != bisectReport(id) {
		t.Fatalf("with the report beside the page: links %+v, want %s", l, bisectReport(id))
	}
}

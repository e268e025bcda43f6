package nightly

import (
	"context"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// A good night measured in two looks is the next night's baseline with
// both looks' boots pooled, named by its first run, not its second look's
// run alone (half its boots).
func TestBaselinePoolsTheGoodNightsLooks(t *testing.T) {
	n, _ := newNight(t)
	ctx := context.Background()
	exp := "rstat-every-n"
	n.GreyUpper = 1 // everything not significant is grey: a judged night looks twice
	if first := n.Run(ctx, exp); first.Outcome != verdict.FirstNight {
		t.Fatalf("night 1: %s %s", first.Outcome, first.Error)
	}
	second := n.Run(ctx, exp)
	if second.Outcome != verdict.NightPass || len(second.RunIDs) != 2 {
		t.Fatalf("night 2: %s in runs %v, want a pass in two looks: %+v", second.Outcome, second.RunIDs, second.Cases)
	}
	n.ExtraRounds = 0
	third := n.Run(ctx, exp)
	if third.BaselineID != second.RunIDs[0] {
		t.Fatalf("night 3 compared with run %d, want night 2's first run %d", third.BaselineID, second.RunIDs[0])
	}
	// 8 repetitions a look: night 2's 16 boots of each variant against
	// tonight's 8.
	var judged int
	for _, c := range third.Cases {
		if c.Kind == nightreport.KindMetric {
			judged++
			if !strings.Contains(c.Message, "n=16+8") {
				t.Errorf("night 3's %s %s: %s, want n=16+8 (both looks of night 2)", c.Variant, c.Name, c.Message)
			}
		}
	}
	if judged == 0 {
		t.Fatalf("night 3 judged no metric: %+v", third.Cases)
	}
	// The named baseline's results are the pooled night's.
	tonight, err := n.Store.Results(ctx, third.RunIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	base, err := n.lastGood(ctx, third.Experiment, third.RunIDs[0], tonight)
	if err != nil || base == nil {
		t.Fatalf("lastGood: %v", err)
	}
	want := 0
	for _, id := range second.RunIDs {
		rs, _ := n.Store.Results(ctx, id)
		want += len(rs)
	}
	if len(base.results) != want {
		t.Fatalf("baseline holds %d results, want %d", len(base.results), want)
	}
}

package nightly

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
)

// TestPruneArtifactsKeepsBaselines: four nights, the third a regression;
// pruning everything older than now deletes the artifacts of every night
// but the newest good one (the baseline the next night would use), and
// keeps every run in the store.
func TestPruneArtifactsKeepsBaselines(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	exp := "rstat-every-n"
	var ids []int64
	for i, hold := range []float64{50, 50, 70, 50} {
		fr.holdUS = hold
		r := n.Run(ctx, exp)
		if r.Error != "" {
			t.Fatalf("night %d: %s", i+1, r.Error)
		}
		ids = append(ids, r.RunIDs...)
	}
	arts := t.TempDir()
	for _, id := range ids {
		os.MkdirAll(filepath.Join(arts, fmt.Sprintf("run-%d", id), "001-stock-r1"), 0o755)
	}
	base, err := Baselines(ctx, n.Store, exp)
	if err != nil {
		t.Fatal(err)
	}
	newest := ids[len(ids)-1]
	if len(base) != 1 || !base[newest] {
		t.Fatalf("baselines %v, want only the newest good night %d", base, newest)
	}
	// An accepted regression is a baseline until a newer one supersedes it:
	// accept night 3 and it is still superseded by night 4 (alike, newer).
	n.Store.AddMark(ctx, &results.Mark{RunID: ids[2], Kind: results.MarkAccepted, Who: "t", Reason: "intended"})
	pruned, err := PruneArtifacts(ctx, n.Store, exp, arts, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != len(ids)-1 {
		t.Fatalf("pruned %v of %v, want all but %d", pruned, ids, newest)
	}
	for _, id := range ids {
		_, err := os.Stat(filepath.Join(arts, fmt.Sprintf("run-%d", id)))
		if (id == newest) != (err == nil) {
			t.Fatalf("run %d artifacts present=%v", id, err == nil)
		}
		if _, err := n.Store.GetRun(ctx, id); err != nil {
			t.Fatalf("run %d left the store: %v", id, err)
		}
	}
}

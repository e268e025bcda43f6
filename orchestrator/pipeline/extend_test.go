package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// A finished run of 2 repetitions extended to 4: its 4 cells stay as they
// were, the 4 new ones run in the order the run's seed gives 4
// repetitions, the stored configuration says 4, and the run is complete.
func TestExtendAddsRepetitionsToAFinishedRun(t *testing.T) {
	dir := t.TempDir()
	store := storetest.SQLiteIn(t, dir)
	quiet := func(string, ...any) {}
	cfg := &config.Config{Experiment: "e", Repetitions: 2, Order: "shuffled", Seed: 7}
	p := &Prepared{Family: &patches.Family{Name: "rstat", Baseline: "A"}, Variants: []VariantBuild{{Name: "A"}, {Name: "B"}}, AgentCmd: "x"}
	ex := &Executor{Store: store, ArtifactsDir: filepath.Join(dir, "artifacts"), Report: quiet,
		Cells: &Local{Runner: newRunner(&fakeBooter{}, &fakeDialer{run: okRun(goodDocument(10))}), Report: quiet}}
	id, err := ex.Execute(context.Background(), cfg, p)
	if err != nil {
		t.Fatal(err)
	}
	ex.Cells = &Local{Runner: newRunner(&fakeBooter{}, &fakeDialer{run: okRun(goodDocument(20))}), Report: quiet}
	if err := ex.Extend(context.Background(), id, p, 4); err != nil {
		t.Fatal(err)
	}
	after, _ := store.Results(context.Background(), id)
	var got, want []string
	for _, r := range after {
		got = append(got, fmt.Sprintf("%d%s%d:%g", r.Seq, r.Variant, r.Repetition, r.Metrics[0].Value))
	}
	for _, c := range Schedule([]string{"A", "B"}, 4, OrderShuffled, 7) {
		v := 20
		if c.Seq <= 4 {
			v = 10 // measured before the extension, kept
		}
		want = append(want, fmt.Sprintf("%d%s%d:%d", c.Seq, c.Variant, c.Repetition, v))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after extending:\n got %s\nwant %s", strings.Join(got, " "), strings.Join(want, " "))
	}
	run, _ := store.GetRun(context.Background(), id)
	sched, err := StoredSchedule(run.Config)
	if err != nil || sched.Repetitions != 4 || sched.Seed != 7 || run.Status != results.RunComplete {
		t.Fatalf("extended run: %s, schedule %+v (%v)", run.Status, sched, err)
	}
	if err := ex.Extend(context.Background(), id, p, 3); err == nil || !strings.Contains(err.Error(), "has 4 repetitions per variant already") {
		t.Fatalf("extending to fewer repetitions: %v", err)
	}
	store.ExtendRun(context.Background(), id, run.Config) // running again, as by another process
	if err := ex.Extend(context.Background(), id, p, 6); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Fatalf("extending a running run: %v", err)
	}
}

func TestWithRepetitions(t *testing.T) {
	in := "experiment: e # the name\nrepetitions: 5\nseed: 7\n"
	out, err := WithRepetitions(in, 10)
	if err != nil || out != "experiment: e # the name\nrepetitions: 10\nseed: 7\n" {
		t.Fatalf("WithRepetitions: %q, %v", out, err)
	}
	if _, err := WithRepetitions("experiment: e\n", 10); err == nil {
		t.Fatal("a config without repetitions was extended")
	}
}

package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
	"github.com/kregress/kregress/results/verdict"
)

// How a bisect ended is `kregress bisect`'s exit: a culprit 0, does not
// reproduce 7, a range 8, interrupted or failed an error (exit 1) that
// says how to resume, an unknown metric a usage error (2) even when
// interrupted too.
func TestEndedVerdict(t *testing.T) {
	culprit, inconclusive := &Result{Culprit: "c"}, &Result{Range: []string{"a", "b"}}
	for _, c := range []struct {
		name        string
		e           Ended
		interrupted bool
		want        verdict.Bisect
		wantErr     string
		usage       bool
	}{
		{"culprit", Ended{ID: 1, Result: culprit}, false, verdict.Culprit, "", false},
		{"range", Ended{ID: 1, Result: inconclusive}, false, verdict.Inconclusive, "", false},
		{"not reproduced", Ended{ID: 1, Err: fmt.Errorf("x: %w", ErrNotReproduced)}, true, verdict.NotReproduced, "", false},
		{"interrupted", Ended{ID: 3, Err: context.Canceled}, true, verdict.Stopped, "bisect 3 interrupted; its steps are stored: kregress bisect --resume 3", false},
		{"failed", Ended{ID: 4, Err: errors.New("qemu died")}, false, verdict.Stopped, "bisect 4: qemu died (steps so far are stored: kregress bisect --resume 4)", false},
		{"unknown metric", Ended{ID: 1, Err: &UnknownMetricError{Metric: "m"}}, true, verdict.Stopped, "m", true},
	} {
		v, err := c.e.Verdict(c.interrupted)
		if v != c.want || (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) || usage.Is(err) != c.usage {
			t.Errorf("%s: %q, %v; want %q, %q (usage %v)", c.name, v, err, c.want, c.wantErr, c.usage)
		}
	}
	if verdict.Culprit.Exit() != verdict.ExitOK || verdict.Inconclusive.Exit() != verdict.ExitInconclusive {
		t.Error("a culprit must exit 0, a range 8")
	}
}

// storeBisects is a store holding a bisect per state: finished without
// the endpoints differing, still running, and finished with a culprit.
func storeBisects(t *testing.T) (db results.Store, same, running, found *results.Bisect) {
	db = storetest.SQLite(t)
	add := func(status results.RunStatus, res *Result) *results.Bisect {
		spec, _ := json.Marshal(&Spec{Metric: "m1", Good: "g", Bad: "b", Names: []string{"g", "b"}})
		state, _ := json.Marshal(res)
		b := &results.Bisect{Experiment: "e", Status: status, Spec: string(spec), State: string(state)}
		if err := db.CreateBisect(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		b.FinishedAt = time.Now().UTC()
		if err := db.SaveBisect(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	return db, add(results.RunComplete, &Result{Reproduced: false}), add(results.RunRunning, &Result{Reproduced: true}),
		add(results.RunComplete, &Result{Reproduced: true, Culprit: "b"})
}

// A stored bisect reads back for show: a finished one whose endpoints
// did not differ says so, an unfinished one without a culprit is "not
// finished" in its report, and show's document says why it has no
// report.
// ParseID takes a bisect's number and refuses anything else as a usage
// error naming it.
func TestParseID(t *testing.T) {
	if id, err := ParseID("12"); err != nil || id != 12 {
		t.Errorf("12: %d, %v", id, err)
	}
	for _, arg := range []string{"x1", "0", "-2"} {
		if _, err := ParseID(arg); !usage.Is(err) || err.Error() != `"`+arg+`" is not a bisect id` {
			t.Errorf("%s: %v, want a usage error naming it", arg, err)
		}
	}
}

func TestLoadStored(t *testing.T) {
	ctx := context.Background()
	db, same, running, found := storeBisects(t)
	s, err := LoadStored(ctx, db, same.ID)
	if err != nil || !errors.Is(s.Err, ErrNotReproduced) || !errors.Is(s.Reported().Err, ErrNotReproduced) || !s.Summary().NotReproduced {
		t.Errorf("not reproduced: %+v %v", s, err)
	}
	if s, err = LoadStored(ctx, db, running.ID); err != nil || s.Err != nil || s.Reported().Err == nil || s.Reported().Err.Error() != "not finished" {
		t.Errorf("running: %+v %v", s, err)
	}
	if s, err = LoadStored(ctx, db, found.ID); err != nil || s.Err != nil || s.Reported().Err != nil {
		t.Errorf("culprit: %+v %v", s, err)
	}
	if _, err := LoadStored(ctx, db, 99); err == nil {
		t.Error("a missing bisect loaded")
	}
	// The report reads the culprit from a git tree there is none of.
	if d := s.Doc(ctx, db); d.ID != found.ID || d.Result.Culprit != "b" || d.Report != nil || d.ReportError == "" {
		t.Errorf("show's document: %+v", d)
	}
}

// list's documents carry spec and state, its lines a summary; a bisect
// whose state does not read is named.
func TestDocsAndSummarizeStored(t *testing.T) {
	db, _, _, found := storeBisects(t)
	bs, err := db.ListBisects(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Docs(bs)
	if err != nil || len(docs) != 3 || docs[0].Spec.Metric != "m1" || docs[0].FinishedAt == nil {
		t.Errorf("list's documents: %+v %v", docs, err)
	}
	if sum, err := SummarizeStored(found); err != nil || sum.Culprit.Name != "b" || sum.ID != found.ID {
		t.Errorf("listing summary: %+v %v", sum, err)
	}
	bad := &results.Bisect{ID: 7, Spec: "{"}
	if _, err := Docs([]*results.Bisect{bad}); err == nil || !strings.Contains(err.Error(), "bisect 7") {
		t.Errorf("an unreadable bisect: %v", err)
	}
	if _, err := SummarizeStored(bad); err == nil {
		t.Error("an unreadable bisect summarized")
	}
}

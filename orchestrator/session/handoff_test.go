package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/bisect"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/store"
)

// A stored bisect of the same search is found again (nightly --bisect
// resumes it); another metric, variant, range or kind is not.
func TestFindBisect(t *testing.T) {
	db, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	spec := &bisect.Spec{Experiment: "/e.yaml", GitTree: "/linux", Good: "aaaa", Bad: "bbbb", Names: []string{"a", "m", "b"}, Metric: "m1", Variant: "v"}
	data, _ := json.Marshal(spec)
	b := &results.Bisect{Experiment: "e", Status: results.RunComplete, Spec: string(data), State: "{}"}
	if err := db.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(s *bisect.Spec)
		want int64
	}{
		{func(*bisect.Spec) {}, b.ID},
		{func(s *bisect.Spec) { s.Metric = "m2" }, 0},
		{func(s *bisect.Spec) { s.Variant = "w" }, 0},
		{func(s *bisect.Spec) { s.Names = []string{"a", "c"} }, 0},
		{func(s *bisect.Spec) { s.Crash = true }, 0},
	} {
		s := *spec
		tc.edit(&s)
		if got, err := findBisect(ctx, db, &s); err != nil || got != tc.want {
			t.Errorf("found %d, want %d (%v)", got, tc.want, err)
		}
	}
}

func TestCacheKey(t *testing.T) {
	if a, b := CacheKey("x"), CacheKey("y"); len(a) != 12 || a == b || a != CacheKey("x") {
		t.Fatalf("CacheKey: %q %q", a, b)
	}
}

// Handoffs reports a bisect that could not start and goes on to the
// next, links none of them, and starts none once ctx is cancelled.
func TestHandoffsReportFailuresAndStop(t *testing.T) {
	h1 := &nightreport.Handoff{Experiment: "one", Kind: nightreport.KindMetric, Metric: "m", Good: "g", Bad: "b", Command: "kregress bisect -c one"}
	h2 := &nightreport.Handoff{Experiment: "two", Kind: nightreport.KindMetric, Metric: "m", Good: "g", Bad: "b", Command: "kregress bisect -c two"}
	night := []*nightreport.Result{{Experiment: "one", Cases: []nightreport.Case{{Name: "m", Bisect: h1}, {Name: "m2", Bisect: h2}}}}
	var said []string
	s := &Session{Report: func(f string, a ...any) { said = append(said, fmt.Sprintf(f, a...)) }}
	load := func(e string) (*config.Config, error) { return nil, errors.New("no experiment " + e) }
	var stdout, stderr bytes.Buffer
	out := HandoffOutput{Stdout: &stdout, Stderr: &stderr, ReportDir: t.TempDir()}
	s.Handoffs(context.Background(), load, night, out)
	want := []string{"=== nightly --bisect: kregress bisect -c one", "nightly --bisect: kregress bisect -c one: no experiment one",
		"=== nightly --bisect: kregress bisect -c two", "nightly --bisect: kregress bisect -c two: no experiment two"}
	if strings.Join(said, "\n") != strings.Join(want, "\n") {
		t.Errorf("reported:\n%s\nwant:\n%s", strings.Join(said, "\n"), strings.Join(want, "\n"))
	}
	if h1.BisectID != 0 || h2.BisectID != 0 {
		t.Errorf("linked a bisect that never ran: %d %d", h1.BisectID, h2.BisectID)
	}
	if stdout.Len() != 0 || stderr.Len() != 0 {
		t.Errorf("showed a bisect that never started:\n%s%s", stdout.String(), stderr.String())
	}
	said = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.Handoffs(ctx, load, night, out)
	if len(said) != 0 {
		t.Errorf("cancelled, it still handed off: %q", said)
	}
}

package nightly

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// Only a complete run with an ok cell of every variant is accepted as a
// baseline; the mark keeps who and why.
func TestAccept(t *testing.T) {
	ctx := t.Context()
	s, err := store.OpenSQLite(filepath.Join(t.TempDir(), "kregress.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &results.Run{Experiment: "e", Family: "f", Baseline: "a", Variants: []string{"a", "b"}, Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	add := func(variant string, seq int) {
		if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: variant, Repetition: 1, Seq: seq, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "m", Value: 1}}}); err != nil {
			t.Fatal(err)
		}
	}
	add("a", 1)
	if err := Accept(ctx, s, r.ID, "jane", "why"); !usage.Is(err) || !strings.Contains(err.Error(), "not complete") {
		t.Fatalf("a running run: %v", err)
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	if err := Accept(ctx, s, r.ID, "jane", "why"); !usage.Is(err) || !strings.Contains(err.Error(), "no ok cell of variant b") {
		t.Fatalf("a variant without an ok cell: %v", err)
	}
	add("b", 2)
	if err := Accept(ctx, s, r.ID, "jane", "why"); err != nil {
		t.Fatal(err)
	}
	marks, err := s.Marks(ctx, r.ID)
	if err != nil || len(marks) != 1 || marks[0].Kind != results.MarkAccepted || marks[0].Who != "jane" || marks[0].Reason != "why" {
		t.Fatalf("marks: %+v, %v", marks, err)
	}
}

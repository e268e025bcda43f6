package nightly

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// Only a complete run with an ok cell of every variant is accepted as a
// baseline; the mark keeps who and why.
func TestAccept(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	ab := []string{"a", "b"}
	okA, okB := storetest.Cell{Variant: "a", Status: results.StatusOK}, storetest.Cell{Variant: "b", Status: results.StatusOK}
	running := storetest.AddRun(t, s, results.RunRunning, ab, okA, okB)
	if err := Accept(ctx, s, running.ID, "jane", "why"); !usage.Is(err) || !strings.Contains(err.Error(), "not complete") {
		t.Fatalf("a running run: %v", err)
	}
	halfOK := storetest.AddRun(t, s, results.RunComplete, ab, okA, storetest.Cell{Variant: "b", Status: results.StatusCrashed})
	if err := Accept(ctx, s, halfOK.ID, "jane", "why"); !usage.Is(err) || !strings.Contains(err.Error(), "no ok cell of variant b") {
		t.Fatalf("a variant without an ok cell: %v", err)
	}
	r := storetest.AddRun(t, s, results.RunComplete, ab, okA, okB)
	if err := Accept(ctx, s, r.ID, "jane", "why"); err != nil {
		t.Fatal(err)
	}
	marks, err := s.Marks(ctx, r.ID)
	if err != nil || len(marks) != 1 || marks[0].Kind != results.MarkAccepted || marks[0].Who != "jane" || marks[0].Reason != "why" {
		t.Fatalf("marks: %+v, %v", marks, err)
	}
}

// ListMarks reads the runs asked for, or the latest ones, and is an
// empty list (not nil) when no run has a mark.
func TestListMarks(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	okA := storetest.Cell{Variant: "a", Status: results.StatusOK}
	plain := storetest.AddRun(t, s, results.RunComplete, []string{"a"}, okA)
	rows, err := ListMarks(ctx, s, []int64{plain.ID})
	if err != nil || rows == nil || len(rows) != 0 {
		t.Fatalf("no marks: %#v, %v", rows, err)
	}
	r := storetest.AddRun(t, s, results.RunComplete, []string{"a"}, okA)
	if err := Accept(ctx, s, r.ID, "jane", "why"); err != nil {
		t.Fatal(err)
	}
	rows, err = ListMarks(ctx, s, nil)
	if err != nil || len(rows) != 1 || rows[0].RunID != r.ID || rows[0].Kind != string(results.MarkAccepted) || rows[0].Who != "jane" || rows[0].Reason != "why" {
		t.Fatalf("the latest runs' marks: %+v, %v", rows, err)
	}
}

// Record accepts the run and says who accepted it and why; MarksOf
// reads the run ids it is given, refusing one that is not.
func TestRecordAndMarksOf(t *testing.T) {
	ctx := t.Context()
	s := storetest.SQLite(t)
	r := storetest.AddRun(t, s, results.RunComplete, []string{"a"}, storetest.Cell{Variant: "a", Status: results.StatusOK})
	var out strings.Builder
	if err := (Acceptance{RunID: r.ID, Who: "jane", Reason: "why"}).Record(ctx, s, &out); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("run %d accepted as a baseline by jane: why\n", r.ID); out.String() != want {
		t.Fatalf("Record said %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := (Acceptance{RunID: r.ID + 1, Who: "jane", Reason: "why"}).Record(ctx, s, &out); err == nil || out.Len() != 0 {
		t.Fatalf("accepting a run that is not there: %v, said %q", err, out.String())
	}
	rows, err := MarksOf(ctx, s, []string{fmt.Sprint(r.ID)})
	if err != nil || len(rows) != 1 || rows[0].RunID != r.ID || rows[0].Who != "jane" {
		t.Fatalf("MarksOf: %+v, %v", rows, err)
	}
	if _, err := MarksOf(ctx, s, []string{"x"}); !usage.Is(err) {
		t.Fatalf("MarksOf a non-id: %v, want a usage error", err)
	}
}

// baseline accept's arguments are checked before the store is opened: a
// reason is required and RUN must be a run id; the mark names $USER.
func TestNewAcceptance(t *testing.T) {
	t.Setenv("USER", "jane")
	for _, c := range []struct{ run, reason, want string }{
		{"41", "", "--reason is required"},
		{"41", "  ", "--reason is required"},
		{"forty-one", "intended", `"forty-one" is not a run id`},
		{"0", "intended", `"0" is not a run id`},
		{"-3", "intended", `"-3" is not a run id`},
		{"41abc", "intended", `"41abc" is not a run id`},
	} {
		if _, err := NewAcceptance(c.run, c.reason); !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("accept %q --reason %q: %v, want a usage error saying %q", c.run, c.reason, err, c.want)
		}
	}
	a, err := NewAcceptance("41", "intended: relock merged")
	if err != nil || a != (Acceptance{RunID: 41, Who: "jane", Reason: "intended: relock merged"}) {
		t.Fatalf("%+v, %v", a, err)
	}
	t.Setenv("USER", "")
	if a, _ := NewAcceptance("41", "x"); a.Who != "unknown" {
		t.Errorf("without $USER the mark names %q, want unknown", a.Who)
	}
	if ids, err := RunIDs([]string{"41", "42"}); err != nil || len(ids) != 2 || ids[0] != 41 || ids[1] != 42 {
		t.Errorf("RunIDs: %v, %v", ids, err)
	}
}

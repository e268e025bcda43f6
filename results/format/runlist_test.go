package format_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/runlist"
)

func TestWriteRunList(t *testing.T) {
	started := time.Date(2026, 12, 5, 1, 2, 3, 0, time.Local)
	var b bytes.Buffer
	if err := format.WriteRunList(&b, []runlist.Row{
		{ID: 12, Experiment: "rstat-relock", Family: "rstat", Variants: []string{"stock", "per-cpu-relock"}, StartedAt: started, Status: "complete", OK: 10, Cells: 10},
		{ID: 3, Experiment: "e", Family: "f", Variants: []string{"a"}, StartedAt: started, Status: "running (process gone)", OK: 1, Cells: 2, Note: "kregress pid 7 ended"},
	}); err != nil {
		t.Fatal(err)
	}
	want := "ID  EXPERIMENT    FAMILY  VARIANTS              STARTED              STATUS                  CELLS     NOTE\n" +
		"12  rstat-relock  rstat   stock,per-cpu-relock  2026-12-05 01:02:03  complete                10/10 ok  \n" +
		"3   e             f       a                     2026-12-05 01:02:03  running (process gone)  1/2 ok    kregress pid 7 ended\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteRunHistory(t *testing.T) {
	var b bytes.Buffer
	format.WriteRunHistory(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no history printed %q", b.String())
	}
	format.WriteRunHistory(&b, []*results.Result{{Seq: 3, Status: results.StatusTimeout}, {Seq: 5, Status: results.StatusOK}})
	if want := "  history: 2 other attempt(s) kept, not counted (a retried task or a resumed run): cell 3 timeout, cell 5 ok\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

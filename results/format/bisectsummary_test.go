package format

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
)

// TestBisectLine: a listing line names the culprit and its confirmation,
// the nightly runs that handed the bisect its case, cuts full commit ids,
// and says when a bisect's state does not read.
func TestBisectLine(t *testing.T) {
	b := &results.Bisect{ID: 3, Status: results.RunComplete, StartedAt: time.Date(2026, 1, 2, 3, 4, 0, 0, time.Local)}
	full := "0123456789abcdef0123456789abcdef01234567"
	s := &bisectreport.Summary{Experiment: "rstat", Metric: "m", Variant: "smp", Good: "v1", Bad: full, Started: true, Reproduced: true,
		Culprit: bisectreport.Point{Name: full, Title: "mm: slow (A <a@b>)"}, FromNightly: true, NightRunIDs: []int64{5, 6}}
	want := "3\tcomplete\t2026-01-02 03:04\trstat\tm (smp) v1..0123456789ab [nightly runs [5 6]]\tculprit 0123456789ab mm: slow (A <a@b>); not checked"
	if got := BisectLine(b, s, nil); got != want {
		t.Errorf("BisectLine =\n%q, want\n%q", got, want)
	}
	s = &bisectreport.Summary{Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Started: true}
	if got := BisectLine(b, s, nil); got != "3\tcomplete\t2026-01-02 03:04\trstat\tm v1..v2\tdoes not reproduce" {
		t.Errorf("not reproduced: %q", got)
	}
	if got := BisectLine(b, nil, errors.New("bad json")); got != "3\tcomplete\t2026-01-02 03:04\t(unreadable: bad json)" {
		t.Errorf("unreadable: %q", got)
	}
}

// TestWriteBisectShowAndList: show heads the report with the status (a
// running bisect may be one whose process is gone), list says when
// nothing is stored and marks a bisect whose state does not read.
func TestWriteBisectShowAndList(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.Local)
	s := &bisectreport.Summary{ID: 3, Metric: "m", Good: "v1", Bad: "v2", Points: 2, Err: "x"}
	var w strings.Builder
	WriteBisectShow(&w, &results.Bisect{ID: 3, Status: results.RunRunning, StartedAt: at}, s)
	want := "status: running, or interrupted if no kregress bisect is running now (started 2026-01-02 03:04)\n" +
		"bisect 3: m from v1 to v2 (2 points)\n  stopped before the endpoints were measured: x\n"
	if w.String() != want {
		t.Errorf("show:\n%q, want\n%q", w.String(), want)
	}
	w.Reset()
	WriteBisectList(&w, nil, nil)
	if w.String() != "no bisects stored\n" {
		t.Errorf("empty list: %q", w.String())
	}
	w.Reset()
	bs := []*results.Bisect{{ID: 4, Status: results.RunComplete, StartedAt: at}, {ID: 5, Status: results.RunFailed, StartedAt: at}}
	WriteBisectList(&w, bs, func(b *results.Bisect) (*bisectreport.Summary, error) {
		if b.ID == 5 {
			return nil, errors.New("bad json")
		}
		return &bisectreport.Summary{Experiment: "e", Metric: "m", Good: "v1", Bad: "v2"}, nil
	})
	want = "4\tcomplete\t2026-01-02 03:04\te\tm v1..v2\t-\n5\tfailed\t2026-01-02 03:04\t(unreadable: bad json)\n"
	if w.String() != want {
		t.Errorf("list:\n%q, want\n%q", w.String(), want)
	}
}

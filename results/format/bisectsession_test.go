package format

import (
	"errors"
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
	s := &bisectreport.Session{Experiment: "rstat", Metric: "m", Variant: "smp", Good: "v1", Bad: full, Started: true, Reproduced: true,
		Culprit: bisectreport.Point{Name: full, Title: "mm: slow (A <a@b>)"}, FromNightly: true, NightRunIDs: []int64{5, 6}}
	want := "3\tcomplete\t2026-01-02 03:04\trstat\tm (smp) v1..0123456789ab [nightly runs [5 6]]\tculprit 0123456789ab mm: slow (A <a@b>); not checked"
	if got := BisectLine(b, s, nil); got != want {
		t.Errorf("BisectLine =\n%q, want\n%q", got, want)
	}
	s = &bisectreport.Session{Experiment: "rstat", Metric: "m", Good: "v1", Bad: "v2", Started: true}
	if got := BisectLine(b, s, nil); got != "3\tcomplete\t2026-01-02 03:04\trstat\tm v1..v2\tdoes not reproduce" {
		t.Errorf("not reproduced: %q", got)
	}
	if got := BisectLine(b, nil, errors.New("bad json")); got != "3\tcomplete\t2026-01-02 03:04\t(unreadable: bad json)" {
		t.Errorf("unreadable: %q", got)
	}
}

package session

import (
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/bisect"
)

// kregress bisect refuses, as usage errors and before anything builds, a
// negative --resume, a --repetitions that does not read and (for a new
// search only: a resume keeps what it stored) an alpha or looks that
// could only end "does not reproduce".
func TestBisectRunCheck(t *testing.T) {
	ok := BisectRun{RepsText: "4,4,8", Request: BisectRequest{Alpha: 0.05}}
	if err := ok.Check(); err != nil || len(ok.Request.Reps) != 3 || ok.Request.Reps[2] != 8 {
		t.Fatalf("a good run: %v, reps %v", err, ok.Request.Reps)
	}
	for _, c := range []struct {
		r    BisectRun
		want string
	}{
		{BisectRun{RepsText: "4", Resume: -1}, "--resume -1 is not a bisect id"},
		{BisectRun{RepsText: "4,x", Request: BisectRequest{Alpha: 0.05}}, "--repetitions"},
		{BisectRun{RepsText: "4", Request: BisectRequest{Alpha: 0}}, "--alpha 0"},
		{BisectRun{RepsText: "1,1,1", Request: BisectRequest{Alpha: 0.05}}, "--repetitions 2,2,2"},
	} {
		if err := c.r.Check(); err == nil || !usage.Is(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.r, err, c.want)
		}
	}
	resumed := BisectRun{RepsText: bisect.RepsString(bisect.DefaultReps), Resume: 3}
	if err := resumed.Check(); err != nil {
		t.Errorf("a resume with alpha 0 (its own is stored): %v", err)
	}
}

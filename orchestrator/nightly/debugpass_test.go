package nightly

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// fakeDebug is a debug pass that says what it is told to, counting calls.
type fakeDebug struct {
	finding *DebugFinding
	err     error
	calls   int
}

func (f *fakeDebug) pass(context.Context, *config.Config, *variants.Selection) (*DebugFinding, error) {
	f.calls++
	return f.finding, f.err
}

// A debug pass's finding fails the night as a regression (exit 3, as
// run --fail-on-regression), on the first night and on a passing one;
// nothing flagged, no pass or a pass that could not run leave the night
// as the measured run judged it.
func TestDebugPassCountsInTheExit(t *testing.T) {
	ctx := context.Background()
	exp := "rstat-every-n"
	flagged := &DebugFinding{RunID: 99, Flagged: []string{"per-cpu-relock: new kernel report: WARNING: possible circular locking dependency detected"}}
	for _, tc := range []struct {
		name          string
		debug         *fakeDebug
		first, second verdict.Night
		exit          verdict.Exit
	}{
		{"flagged", &fakeDebug{finding: flagged}, verdict.NightRegression, verdict.NightRegression, verdict.ExitRegression},
		{"nothing flagged", &fakeDebug{finding: &DebugFinding{RunID: 99}}, verdict.FirstNight, verdict.NightPass, verdict.ExitOK},
		{"no pass tonight", &fakeDebug{}, verdict.FirstNight, verdict.NightPass, verdict.ExitOK},
		{"pass failed", &fakeDebug{err: errors.New("debug pass: kernel does not build")}, verdict.FirstNight, verdict.NightPass, verdict.ExitOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, _ := newNight(t)
			var said []string
			n.Report = func(format string, args ...any) { said = append(said, format) }
			n.Debug = tc.debug.pass
			first := n.Run(ctx, exp)
			second := n.Run(ctx, exp)
			if first.Outcome != tc.first || second.Outcome != tc.second {
				t.Fatalf("nights: %s then %s, want %s then %s: %+v", first.Outcome, second.Outcome, tc.first, tc.second, second.Cases)
			}
			if e := nightreport.Worst([]*nightreport.Result{first, second}).Exit(); e != tc.exit {
				t.Errorf("exit %d, want %d", e, tc.exit)
			}
			if tc.debug.calls != 2 {
				t.Errorf("the debug pass ran %d times in two nights, want once a night", tc.debug.calls)
			}
			var debugCases int
			for _, c := range second.Cases {
				if c.Name == debugCase {
					debugCases++
					if c.Status != nightreport.CaseFailure || !strings.Contains(c.Message, "run 99") || !strings.Contains(c.Message, "circular locking") {
						t.Errorf("debug case %+v: want a failure naming the pass's run and finding", c)
					}
				}
			}
			if want := tc.debug.finding == flagged; (debugCases > 0) != want {
				t.Errorf("%d debug pass case(s), want one: %v", debugCases, want)
			}
			// The first night stays the baseline: the pass compares
			// tonight's kernels with each other, never with it.
			if second.BaselineID != first.RunIDs[0] {
				t.Errorf("night 2 compared with run %d, want night 1's %d", second.BaselineID, first.RunIDs[0])
			}
			if tc.debug.err != nil && !slices.Contains(said, "%s: %v") {
				t.Errorf("the pass's failure was not reported: %q", said)
			}
		})
	}
}

// A night that failed on its cells (a crashed kernel, an infra_error
// cell), on its first night or a later one, or whose run failed, gets no
// debug pass: its verdict outranks the regression a finding would add
// and it is never marked good (debugPass says why). The next night that
// measures runs the pass again.
func TestNoDebugPassOnANightThatFailed(t *testing.T) {
	ctx := context.Background()
	exp := "rstat-every-n"
	flagged := &DebugFinding{RunID: 99, Flagged: []string{"per-cpu-relock: new kernel report: BUG: sleeping function called from invalid context"}}
	for _, tc := range []struct {
		name string
		fail func(*fakeRunner)
		want verdict.Night
	}{
		{"crashed cells", func(f *fakeRunner) { f.status = results.StatusCrashed }, verdict.KernelFailure},
		{"infra_error cells", func(f *fakeRunner) { f.status = results.StatusInfra }, verdict.InfraFailure},
		{"kernel does not build", func(f *fakeRunner) { f.buildErr = &kernel.BuildError{Err: errors.New("make: *** [vmlinux] Error 2")} }, verdict.KernelFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, fr := newNight(t)
			d := &fakeDebug{finding: flagged}
			n.Debug = d.pass
			tc.fail(fr)
			if r := n.Run(ctx, exp); r.Outcome != tc.want || d.calls != 0 {
				t.Fatalf("a failed first night: %s, %d debug pass(es); want %s and none", r.Outcome, d.calls, tc.want)
			}
			*fr = fakeRunner{store: fr.store, rng: fr.rng, holdUS: fr.holdUS}
			if r := n.Run(ctx, exp); r.Outcome != verdict.NightRegression || d.calls != 1 {
				t.Fatalf("a first night that measured: %s, %d debug pass(es); want the finding's regression after one", r.Outcome, d.calls)
			}
			tc.fail(fr)
			r := n.Run(ctx, exp)
			if r.Outcome != tc.want || d.calls != 1 {
				t.Fatalf("a failed night: %s, %d debug pass(es); want %s and still one", r.Outcome, d.calls, tc.want)
			}
			for _, c := range r.Cases {
				if c.Name == debugCase {
					t.Errorf("a failed night has a debug pass case: %+v", c)
				}
			}
		})
	}
}

package nightly

import (
	"context"
	"fmt"
	"strings"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/verdict"
)

// DebugPass runs the correctness gate's debug pass of experiment cfg
// after its measured night (session.Session.NightlyDebug: lockdep/KASAN
// kernels, one boot each, judged on failures, kernel reports and
// selftests). It returns nil when the experiment gets none tonight
// (debug.pass is not on).
type DebugPass func(ctx context.Context, cfg *config.Config, sel *variants.Selection) (*DebugFinding, error)

// DebugFinding is what a debug pass said: its run and what it flagged
// (compare.Diff.Failing of its diff; empty: nothing).
type DebugFinding struct {
	RunID   int64
	Flagged []string
}

// debugCase names a debug pass's case in a night's result.
const debugCase = "debug pass"

// debugPass runs n.Debug for the night res of experiment cfg, whose
// measured run is judged and stored. A finding fails the night as a
// regression, as it fails `kregress run --fail-on-regression` (exit 3):
// a candidate the debug kernels caught breaking locking or memory is
// not a pass because its figures held. The measured run's good mark is
// left as it is: the pass compares tonight's kernels with each other,
// never with a baseline night, so the next night flags it again. A pass
// that could not run is reported, never the night's, as before.
//
// It runs only on a night that reached a verdict on its metrics: the
// first night, or one judged against its baseline. A night that failed
// on its cells (a kernel that crashed or did not boot, an infra_error
// cell) or whose run failed gets none, by decision: its verdict (exit 5
// or 1) outranks the regression a finding adds (verdict.Worse), and such
// a night is never marked good, so the pass could change neither the
// exit code nor a baseline; it would cost a debug build of every
// variant on a night whose kernel or harness is already broken (an
// infrastructure failure would most likely fail the pass too), and a
// crashed kernel's own report is already among the night's cases. The
// next night that measures runs it.
func (n *Night) debugPass(ctx context.Context, res *nightreport.Result, cfg *config.Config, sel *variants.Selection) {
	if n.Debug == nil {
		return
	}
	f, err := n.Debug(ctx, cfg, sel)
	switch {
	case err != nil:
		n.report("%s: %v", cfg.Experiment, err)
	case f == nil:
	case len(f.Flagged) > 0:
		n.report("%s: the debug pass (run %d) flagged: %v", cfg.Experiment, f.RunID, f.Flagged)
		res.Cases = append(res.Cases, nightreport.Case{Name: debugCase, Status: nightreport.CaseFailure,
			Message: fmt.Sprintf("the debug pass (run %d) flagged: %s", f.RunID, strings.Join(f.Flagged, "; ")),
			Detail:  fmt.Sprintf("`kregress diff %d` shows the debug kernels' diff (%s)", f.RunID, strings.Join(cfg.Debug.Fragments, ", "))})
		res.Outcome = verdict.Worse(res.Outcome, verdict.NightRegression)
	default:
		n.report("%s: the debug pass (run %d) flagged nothing", cfg.Experiment, f.RunID)
	}
}

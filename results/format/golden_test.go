package format_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/format"
)

// goldenCase is one comparison rendered in every format.
type goldenCase struct {
	name     string
	results  []*results.Result
	baseline string
	opts     compare.Options
}

// goldenCases cover every block of every format: a regression and an
// improvement with a primary metric, warnings, new and old kernel reports
// with an excerpt, selftest changes (new, fixed, known, flaky, unconfirmed
// on a loaded host), an unmeasured candidate, one without an ok cell,
// unjudged small samples and metrics the kernel cannot produce.
func goldenCases() []goldenCase {
	var cs []goldenCase

	old := results.Finding{Kind: results.FindingWarning, Title: "WARNING in old_bug", Count: 1}
	warn := results.Finding{Kind: results.FindingWarning, Title: "WARNING in memory_stat_show", Count: 4,
		Excerpt: "WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1 memory_stat_show+0x1/0x2\nCall Trace:\n memory_stat_show\n seq_read_iter"}
	var rs []*results.Result
	for i := 0; i < 8; i++ {
		b := comparetest.Res("stock", results.StatusOK, 1000+float64(i), 40+float64(i), "cgroup_rstat_flush")
		c := comparetest.Res("relock", results.StatusOK, 900+float64(i), 20+float64(i), "css_rstat_flush")
		s := comparetest.Res("same", results.StatusOK, 1000+float64(i), 40+float64(i%3), "cgroup_rstat_flush")
		comparetest.WithSelftests(b, "pass", "fail", "pass")
		comparetest.WithSelftests(c, "fail", "pass", "pass")
		comparetest.WithSelftests(s, "pass", "fail", "pass")
		b.Findings = append(b.Findings, old)
		c.Findings = append(c.Findings, old, warn)
		rs = append(rs, b, c, s)
	}
	rs = append(rs, comparetest.Cells("relock", results.StatusCrashed, 2)...)
	cs = append(cs, goldenCase{name: "regression", results: rs, baseline: "stock", opts: compare.Options{Primary: []string{"reads_per_sec"},
		NoiseFloorPct: map[string]float64{"hold_us": 1},
		KnownFailures: map[string]compare.KnownFailure{"test_cpuset/test_cpuset_perms_object_allow": {Reason: "needs a second user"}}}})

	var better []*results.Result
	for i := 0; i < 6; i++ {
		better = append(better, comparetest.Res("base", results.StatusOK, 1000+float64(i), 40, "x"), comparetest.Res("fast", results.StatusOK, 1100+float64(i), 40, "x"))
	}
	cs = append(cs, goldenCase{name: "improved", baseline: "base", results: better})

	cs = append(cs, goldenCase{name: "unmeasured", baseline: "base",
		results: append(comparetest.Mixed("base", results.StatusTimeout, 0, 5), comparetest.Cells("cand", results.StatusInfra, 5)...)})

	cs = append(cs, goldenCase{name: "nocell", baseline: "base",
		results: append(comparetest.Mixed("base", results.StatusTimeout, 1, 8), comparetest.Cells("cand", results.StatusCrashed, 8)...)})

	small := append(comparetest.Cells("base", results.StatusOK, 3, 1, 2, 3), comparetest.Cells("cand", results.StatusOK, 3, 4, 5, 6)...)
	cs = append(cs, goldenCase{name: "unjudged", baseline: "base", results: small})

	flagged := append(comparetest.Cells("base", results.StatusOK, 3, 1, 2, 3),
		comparetest.WithFinding(comparetest.Cells("warn", results.StatusOK, 1, 1), results.Finding{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush", Count: 1})...)
	flagged = append(flagged, comparetest.Cells("warn", results.StatusOK, 2, 2, 3)...)
	cs = append(cs, goldenCase{name: "flagged", baseline: "base", results: flagged})

	loaded := []*results.Result{
		comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet),
		comparetest.BootWith("stock", agentproto.SelftestPass, comparetest.Quiet),
		comparetest.BootWith("cand", agentproto.SelftestFail, comparetest.Busy),
		comparetest.BootWith("cand", agentproto.SelftestPass, comparetest.Quiet),
	}
	cs = append(cs, goldenCase{name: "unconfirmed", baseline: "stock", results: loaded})

	flaky := comparetest.GateRuns([]string{"pass", "fail", "pass"}, []string{agentproto.SelftestFlaky, "pass", "fail"})
	cs = append(cs, goldenCase{name: "flaky", baseline: "stock", results: flaky,
		opts: compare.Options{KnownFailures: map[string]compare.KnownFailure{"test_kmem/(binary)": {Reason: "races", Flaky: true}}}})

	const reason = "unavailable on this kernel: no tracepoint cgroup:cgroup_rstat_locked"
	un := comparetest.Unavailable(reason, 6)
	cs = append(cs, goldenCase{name: "unavailable", baseline: "base", results: un})
	return cs
}

// TestGoldenFormats pins every format's bytes: rendering moves, it does
// not change (KREGRESS_UPDATE_GOLDEN=1 rewrites testdata/golden from
// today's output).
func TestGoldenFormats(t *testing.T) {
	for _, c := range goldenCases() {
		d, err := compare.Compare(c.results, c.baseline, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, f := range format.DiffFormats {
			var b bytes.Buffer
			if err := format.WriteDiff(&b, d, f); err != nil {
				t.Fatalf("%s %s: %v", c.name, f, err)
			}
			testfile.Golden(t, filepath.Join("testdata", "golden", fmt.Sprintf("%s.%s", c.name, f)), b.String())
		}
	}
}

// TestGoldenSummary pins the one-set summary (a family without a
// candidate).
func TestGoldenSummary(t *testing.T) {
	rs := comparetest.GateRuns([]string{"pass", "fail", "pass"}, nil)[:8]
	rs = append(rs, comparetest.Cells("stock", results.StatusCrashed, 1)...)
	var b bytes.Buffer
	format.WriteSetSummary(&b, "stock", compare.SummarizeSet(rs, compare.Options{}))
	testfile.Golden(t, filepath.Join("testdata", "golden", "summary.table"), b.String())
}

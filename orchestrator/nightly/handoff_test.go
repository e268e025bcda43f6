package nightly

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// gitRepo makes a repository with n empty commits on main and returns
// their ids, oldest first.
func gitRepo(t *testing.T, n int) (string, []string) {
	t.Helper()
	repo := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	var ids []string
	for i := 0; i < n; i++ {
		git("commit", "-q", "--allow-empty", "-m", "c")
		ids = append(ids, git("rev-parse", "HEAD"))
	}
	return repo, ids
}

// Every regression kind names the commits since the last good night and
// the bisect command that searches them, in every output; a variant
// measured from a source that is no commit says so instead.
func TestRegressionsAreHandedOff(t *testing.T) {
	n, fr := newNight(t)
	ctx := context.Background()
	repo, ids := gitRepo(t, 5)
	editLoaded(n, func(cfg *config.Config) { cfg.Kernel.GitTree = repo })
	commit := ids[0]
	broken := false
	fr.edit = func(r *results.Result) {
		r.Provenance.GitCommit = commit
		if r.Repetition > 2 {
			return
		}
		o := agentproto.SelftestPass
		if broken && r.Variant == "per-cpu-relock" {
			o = agentproto.SelftestFail
		}
		r.Selftests = []agentproto.SelftestResult{{Binary: "test_freezer", Name: "test_cgfreezer_migrate", Outcome: o}}
	}
	const exp = "rstat-every-n"
	if first := n.Run(ctx, exp); first.Outcome != verdict.FirstNight {
		t.Fatalf("night 1: %s", first.Outcome)
	}
	commit, fr.holdUS, broken = ids[4], 70, true
	slow := n.Run(ctx, exp)
	if slow.Outcome != verdict.NightRegression {
		t.Fatalf("night 2: %s %+v", slow.Outcome, slow.Cases)
	}
	checkHandoffCommands(t, failingHandoffs(t, slow), repo, ids)
	checkMetricFigures(t, slow)
	// Both variants' lock hold regressed (the fake slows both), and one
	// selftest of one variant: three bisects.
	if hs := nightreport.Handoffs([]*nightreport.Result{slow}); len(hs) != 3 {
		t.Fatalf("distinct bisects %d, want 3 (two metric, one crash)", len(hs))
	}
	checkHandoffOutputs(t, slow, ids)

	// The same commit as the baseline: nothing to bisect, and said so.
	commit, broken = ids[0], false
	same := n.Run(ctx, exp)
	for _, c := range same.Cases {
		if c.Status == nightreport.CaseFailure && (c.Bisect == nil || c.Bisect.Command != "" || !strings.Contains(c.Bisect.NoRange, "same commit")) {
			t.Fatalf("same commit: %+v", c.Bisect)
		}
	}
	// A kernel that is no commit (the Debian tarball): no range, said so.
	fr.edit = func(r *results.Result) {
		r.Provenance.GitCommit, r.Provenance.SourceID = "", "debian:linux-source-6.12"
	}
	checkTarballNight(t, n.Run(ctx, exp))
}

// failingHandoffs checks that exactly the failing cases of night carry a
// hand-off and returns per-cpu-relock's hand-offs by regression kind.
func failingHandoffs(t *testing.T, night *nightreport.Result) map[nightreport.Kind]*nightreport.Handoff {
	t.Helper()
	kinds := map[nightreport.Kind]*nightreport.Handoff{}
	for _, c := range night.Cases {
		if c.Status == nightreport.CaseFailure {
			if c.Bisect == nil {
				t.Fatalf("failing case %s %s has no hand-off", c.Variant, c.Name)
			}
			if c.Variant == "per-cpu-relock" {
				kinds[c.Kind] = c.Bisect
			}
		} else if c.Bisect != nil {
			t.Fatalf("case %s %s (%s) has a hand-off", c.Variant, c.Name, c.Status)
		}
	}
	return kinds
}

// checkHandoffCommands checks the metric and the selftests hand-off of
// per-cpu-relock: the range from the good night's commit (ids[0]) to the
// bad one's (ids[4]) and the bisect commands that search it.
func checkHandoffCommands(t *testing.T, kinds map[nightreport.Kind]*nightreport.Handoff, repo string, ids []string) {
	t.Helper()
	m, s := kinds[nightreport.KindMetric], kinds[nightreport.KindSelftests]
	if m == nil || s == nil {
		t.Fatalf("want a metric and a selftests regression, got %v", kinds)
	}
	wantRange := ids[0][:12] + ".." + ids[4][:12] + " (4 commits, first-parent)"
	if m.Range() != wantRange || m.Good != ids[0] || m.Bad != ids[4] {
		t.Fatalf("range %q, want %q", m.Range(), wantRange)
	}
	wantMetric := "kregress bisect -c rstat-every-n --kernel.git-tree " + repo + " --good " + ids[0][:12] + " --bad " + ids[4][:12] + " --variant per-cpu-relock --metric rstat_lock_hold_p99_us"
	if m.Command != wantMetric {
		t.Fatalf("metric command\n %s\nwant\n %s", m.Command, wantMetric)
	}
	if !strings.HasSuffix(s.Command, "--variant per-cpu-relock --crash") {
		t.Fatalf("selftests command: %s", s.Command)
	}
}

// checkMetricFigures checks the statistics behind per-cpu-relock's failing
// metric case.
func checkMetricFigures(t *testing.T, night *nightreport.Result) {
	t.Helper()
	var metricCase *nightreport.Case
	for i := range night.Cases {
		if night.Cases[i].Kind == nightreport.KindMetric && night.Cases[i].Status == nightreport.CaseFailure && night.Cases[i].Variant == "per-cpu-relock" {
			metricCase = &night.Cases[i]
		}
	}
	if metricCase == nil {
		t.Fatalf("no failing metric case of per-cpu-relock in %+v", night.Cases)
	}
	if mc := metricCase.Metric; mc == nil || !strings.Contains(mc.String(), "p=") || mc.P <= 0 || mc.Q < mc.P || mc.N1 != 8 || mc.N2 != 8 || mc.DeltaPct < 20 || mc.MDEPct <= 0 {
		t.Fatalf("metric figures %+v", metricCase.Metric)
	}
}

// checkHandoffOutputs checks that JUnit, Markdown and JSON all carry the
// range and both bisect commands, and that the JSON reads back.
func checkHandoffOutputs(t *testing.T, night *nightreport.Result, ids []string) {
	t.Helper()
	var junit, md, js bytes.Buffer
	format.WriteNightJUnit(&junit, []*nightreport.Result{night})
	format.WriteNightMarkdown(&md, []*nightreport.Result{night})
	format.WriteNightJSON(&js, []*nightreport.Result{night})
	for name, out := range map[string]string{"junit": junit.String(), "markdown": md.String(), "json": js.String()} {
		for _, want := range []string{ids[0][:12] + ".." + ids[4][:12], "--metric rstat_lock_hold_p99_us", "--variant per-cpu-relock --crash"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	if !strings.Contains(junit.String(), `name="bisect.1.command"`) {
		t.Errorf("JUnit lacks the bisect properties:\n%s", junit.String())
	}
	var back struct{ Experiments []*nightreport.Result }
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Experiments[0].Cases == nil {
		t.Fatalf("JSON does not read back: %v", err)
	}
}

// checkTarballNight checks that a night measured from a source that is no
// git commit regresses and says, instead of a command, that there is no
// range to bisect.
func checkTarballNight(t *testing.T, deb *nightreport.Result) {
	t.Helper()
	found := false
	for _, c := range deb.Cases {
		if c.Status == nightreport.CaseFailure {
			found = true
			if c.Bisect == nil || c.Bisect.Command != "" || !strings.Contains(c.Bisect.NoRange, "not commits of a git tree") {
				t.Fatalf("no git: %+v", c.Bisect)
			}
		}
	}
	if !found {
		t.Fatalf("the tarball night did not regress: %s", deb.Outcome)
	}
}

// A bisect's outcome reaches every case handed off with its command, the
// red night's trend (HTML) and the notes.
func TestLinkBisect(t *testing.T) {
	h := nightreport.Handoff{Variant: "v", Kind: nightreport.KindMetric, Metric: "m", Good: "a", Bad: "b", Command: "kregress bisect x"}
	h1, h2 := h, h
	r := &nightreport.Result{Experiment: "e", RunIDs: []int64{12}, Cases: []nightreport.Case{{Variant: "v", Name: "m", Status: nightreport.CaseFailure, Bisect: &h1}, {Variant: "v", Name: "m", Status: nightreport.CaseFailure, Bisect: &h2}},
		Trends: []trendreport.Trend{{Experiment: "e", Variant: "v", Metric: "m"}, {Experiment: "e", Variant: "v", Metric: "other"}}}
	LinkBisect([]*nightreport.Result{r}, h.Key(), BisectOutcome{ID: 3, Culprit: "abc subject", Confirmation: "confirmed", Href: "bisect-3.md"})
	if h1.BisectID != 3 || h2.Culprit != "abc subject" || len(r.Trends[0].Bisects) != 1 || len(r.Trends[1].Bisects) != 0 || len(r.Notes) != 1 {
		t.Fatalf("cases %+v %+v, trends %+v, notes %q", h1, h2, r.Trends, r.Notes)
	}
	var html, md bytes.Buffer
	format.WriteNightHTML(&html, []*nightreport.Result{r})
	format.WriteNightMarkdown(&md, []*nightreport.Result{r})
	if !strings.Contains(html.String(), `<a href="bisect-3.md">run 12: bisect 3: culprit abc subject (confirmed)`) {
		t.Fatalf("HTML:\n%s", html.String())
	}
	if !strings.Contains(md.String(), "bisect 3: culprit abc subject (confirmed) - kregress bisect show 3") {
		t.Fatalf("Markdown:\n%s", md.String())
	}
}

// A variant's regressed metrics over one range are one bisect: every
// case hands off the same command, driven by the most significant
// metric, the others listed to check at its culprit; another variant's
// metric is its own bisect.
func TestOneBisectPerRange(t *testing.T) {
	repo, ids := gitRepo(t, 4)
	cell := func(variant, commit string) *results.Result {
		return &results.Result{Variant: variant, Provenance: results.Provenance{ConfigSHA256: "c0ffee", GitCommit: commit}}
	}
	hs := HandoffSpec{Experiment: "e", GitTree: repo,
		Base:    []*results.Result{cell("v", ids[0]), cell("w", ids[0])},
		Tonight: []*results.Result{cell("v", ids[3]), cell("w", ids[3])}}
	metric := func(variant, name string, q float64) nightreport.Case {
		return nightreport.Case{Variant: variant, Name: name, Status: nightreport.CaseFailure, Kind: nightreport.KindMetric, Metric: &compare.Change{Name: name, Q: q}}
	}
	res := &nightreport.Result{Cases: []nightreport.Case{
		metric("v", "reads_per_sec", 0.003), metric("v", "read_latency_p50_us", 0.001), metric("v", "read_latency_p99_us", 0.02),
		metric("w", "reads_per_sec", 0.01),
	}}
	handOff(context.Background(), res, hs)
	hs2 := nightreport.Handoffs([]*nightreport.Result{res})
	if len(hs2) != 2 {
		t.Fatalf("%d bisects, want one per variant: %+v", len(hs2), hs2)
	}
	v := res.Cases[0].Bisect
	for _, c := range res.Cases[:3] {
		if c.Bisect.Key() != v.Key() {
			t.Fatalf("%s hands off %q, %s %q", c.Name, c.Bisect.Command, res.Cases[0].Name, v.Command)
		}
	}
	if v.Metric != "read_latency_p50_us" || strings.Join(v.Also, ",") != "reads_per_sec,read_latency_p99_us" || !strings.Contains(v.Command, "--metric read_latency_p50_us") {
		t.Fatalf("driver %s, also %v: %s", v.Metric, v.Also, v.Command)
	}
	if w := res.Cases[3].Bisect; w.Metric != "reads_per_sec" || len(w.Also) != 0 {
		t.Fatalf("variant w: %+v", w)
	}
}

package bisect

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/store/storetest"
	"github.com/kregress/kregress/results/verdict"
)

// storingProber stores every look as a run of one cell per boot, as the
// pipeline does, so a report counts real stored boots.
type storingProber struct {
	*revertFake
	store results.Store
	boots int
}

func (s *storingProber) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	smp, err := s.revertFake.Measure(ctx, step, good, bad, reps)
	if err != nil {
		return nil, err
	}
	run := &results.Run{Experiment: "e", Family: "bisect", Baseline: "good", StartedAt: time.Now(), Status: results.RunComplete}
	if err := s.store.CreateRun(ctx, run); err != nil {
		return nil, err
	}
	n := 0
	for v, xs := range map[string][]float64{"step": smp.Step, "good": smp.Good, "bad": smp.Bad} {
		for range xs {
			n++
			r := &results.Result{RunID: run.ID, Variant: v, Repetition: n, Seq: n, Status: results.StatusOK,
				Provenance: results.Provenance{ConfigSHA256: "c0ffee", BaseConfig: "tinyconfig", Compiler: "gcc 12", Accel: "tcg", VCPUs: 2}}
			if err := s.store.AddResult(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	s.boots += n
	smp.RunID = run.ID
	return smp, nil
}

// A confirmed culprit's report names it with subject and author, states
// the change with p, q, n and the MDE, the confirmation, every stored boot
// and the kernel configuration, and renders as Markdown, JSON, JUnit and
// a mail body.
func TestCulpritReport(t *testing.T) {
	store := storetest.SQLite(t)
	names := commits(8)
	spec := &Spec{Experiment: "rstat-relock", GitTree: "/src/linux", Good: "v1", Bad: "series/", Series: true, Names: names, Metric: "rstat_lock_hold_p50_us",
		Points: map[string]Point{}, Titles: map[string]string{}}
	for _, n := range names {
		spec.Points[n] = Point{Ref: n}
		spec.Titles[n] = "change " + n + " (Ann Author <ann@example.org>)"
	}
	p := &storingProber{revertFake: &revertFake{fakeProber: newFake(slowFrom(5), 5), revertValue: 100, added: map[string]Point{}}, store: store}
	runner := &Runner{Store: store, Prober: p, Report: func(string, ...any) {},
		Revert: func(ctx context.Context, s *Spec, c string) (Point, string, error) { return Point{Ref: "r"}, "r", nil }}
	b, res, err := runner.Start(context.Background(), spec)
	if err != nil || res.Culprit != "c5" {
		t.Fatalf("culprit %q: %v", res.Culprit, err)
	}
	r, err := BuildReport(context.Background(), store, b.ID, spec, res, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCulpritFields(t, r, p.boots)
	checkCulpritRenderings(t, r)
	checkCulpritStepSummary(t, r)

	// Not reproduced: its own outcome, skipped in JUnit.
	nr, err := BuildReport(context.Background(), store, 2, spec, &Result{}, ErrNotReproduced)
	if err != nil || nr.Outcome != verdict.NotReproduced {
		t.Fatalf("not reproduced: %v %+v", err, nr)
	}
	var ju bytes.Buffer
	format.WriteCulpritJUnit(&ju, nr)
	if !strings.Contains(ju.String(), "<skipped") {
		t.Fatalf("JUnit of a bisect that does not reproduce:\n%s", ju.String())
	}
}

// checkCulpritFields checks what the report of the confirmed culprit c5
// states: the commit with subject and author, the boots the prober
// stored, the change with its statistics, the confirmation, the kernel
// configuration and how to reproduce.
func checkCulpritFields(t *testing.T, r *bisectreport.Report, boots int) {
	t.Helper()
	if r.Outcome != verdict.Culprit || r.Culprit.ID != "c5" || r.Culprit.Subject != "change c5" || r.Culprit.Author != "Ann Author <ann@example.org>" {
		t.Fatalf("culprit %+v (%s)", r.Culprit, r.Outcome)
	}
	if r.Boots != boots || r.Boots == 0 {
		t.Fatalf("report counts %d boots, the prober stored %d", r.Boots, boots)
	}
	if c := r.Change; c == nil || c.DeltaPct < 20 || c.P <= 0 || c.P > 0.05 || c.Q != c.P || c.N1 < 5 || c.MDEPct <= 0 {
		t.Fatalf("change %+v", r.Change)
	}
	if r.Confirmation == nil || r.Confirmation.Outcome != bisectreport.Confirmed || r.Kernel.ConfigSHA256 != "c0ffee" {
		t.Fatalf("confirmation %+v, kernel %+v", r.Confirmation, r.Kernel)
	}
	if !strings.Contains(r.Reproduce[0], "kregress bisect -c rstat-relock --kernel.git-tree /src/linux --series series/ --base v1 --metric rstat_lock_hold_p50_us") || r.Reproduce[1] != "kregress bisect show 1" {
		t.Fatalf("reproduce %q", r.Reproduce)
	}
}

// checkCulpritRenderings checks that the Markdown, JUnit and mail of r
// carry the culprit, its statistics and the confirmation, and that the
// JSON reads back.
func checkCulpritRenderings(t *testing.T, r *bisectreport.Report) {
	t.Helper()
	var md, js, ju, mail bytes.Buffer
	for _, w := range []func() error{
		func() error { return format.WriteCulpritMarkdown(&md, r) }, func() error { return format.WriteCulpritJSON(&js, r) },
		func() error { return format.WriteCulpritJUnit(&ju, r) }, func() error { return format.WriteCulpritMail(&mail, r) },
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	for name, tc := range map[string]struct {
		out  string
		want []string
	}{
		"markdown": {md.String(), []string{"first bad patch c5", "confirmed by revert", "Ann Author", "p=", "q=", "n=", "80% power", "boots", ".config sha256 c0ffee", "kregress bisect show 1"}},
		"junit":    {ju.String(), []string{`name="culprit" value="c5"`, `name="confirmation" value="confirmed:`, `name="boots"`, `name="mde_pct"`, `type="culprit"`}},
		"mail":     {mail.String(), []string{"Subject: [kregress] rstat_lock_hold_p50_us +", "Author: Ann Author <ann@example.org>", "    change c5", "confirmation: confirmed", "To reproduce:", "not sent"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, tc.out)
			}
		}
	}
	var back bisectreport.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Culprit.ID != "c5" || back.Boots != r.Boots || back.Confirmation.Outcome != bisectreport.Confirmed {
		t.Fatalf("JSON: %v %+v", err, back)
	}
}

// checkCulpritStepSummary checks that $GITHUB_STEP_SUMMARY gets the
// Markdown appended.
func checkCulpritStepSummary(t *testing.T, r *bisectreport.Report) {
	t.Helper()
	summary := filepath.Join(t.TempDir(), "summary.md")
	os.WriteFile(summary, []byte("earlier step\n"), 0o644)
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	if err := format.AppendCulpritStepSummary(r); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(summary); !strings.HasPrefix(string(got), "earlier step\n## kregress bisect 1") {
		t.Fatalf("step summary:\n%s", got)
	}
}

// describeCulprit reads subject, author, date and git describe from git.
func TestDescribeCulpritWithGit(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "base")
	gitIn(t, repo, "tag", "v6.12")
	gitIn(t, repo, "commit", "-q", "--allow-empty", "-m", "cgroup/rstat: slow")
	c := gitIn(t, repo, "rev-parse", "HEAD")
	got, err := describeCulprit(context.Background(), &Spec{GitTree: repo}, c)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != c || got.Subject != "cgroup/rstat: slow" || got.Author != "t <t@t>" || got.Date == "" || !strings.HasPrefix(got.Describe, "v6.12-1-g") {
		t.Fatalf("%+v", got)
	}
}

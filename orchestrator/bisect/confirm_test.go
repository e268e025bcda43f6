package bisect

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/store/storetest"
)

// revertFake measures the revert point at revertValue (the fake's own
// commits as ever).
type revertFake struct {
	*fakeProber
	revertValue  float64
	revertBroken bool
	added        map[string]Point
}

func (r *revertFake) AddPoint(name string, pt Point) { r.added[name] = pt }

func (r *revertFake) Build(ctx context.Context, c string) (string, error) {
	if strings.HasPrefix(c, "revert:") {
		if r.revertBroken {
			return "", &BuildError{Commit: c, Err: errors.New("kernel/cgroup/rstat.c:40: error: 'x' undeclared")}
		}
		return "image-revert", nil
	}
	return r.fakeProber.Build(ctx, c)
}

func (r *revertFake) Measure(ctx context.Context, step, good, bad string, reps int) (*Samples, error) {
	if !strings.HasPrefix(step, "revert:") {
		return r.fakeProber.Measure(ctx, step, good, bad, reps)
	}
	s, err := r.fakeProber.Measure(ctx, "", good, bad, reps)
	for k := 0; k < reps; k++ {
		s.Step = append(s.Step, r.revertValue+r.sd*r.rng.NormFloat64())
	}
	r.measured[step] += reps
	return s, err
}

// The culprit is confirmed only when its revert measures like good; a
// revert like bad refutes it, one that conflicts or does not build leaves
// it unconfirmed and says why. The confirmation is stored with the
// bisect.
func TestConfirmByRevert(t *testing.T) {
	names := commits(8)
	spec := &Spec{Names: names, Points: map[string]Point{}, Metric: "m"}
	for _, n := range names {
		spec.Points[n] = Point{Ref: n}
	}
	for _, tc := range []struct {
		name     string
		value    float64
		broken   bool
		conflict bool
		want     bisectreport.ConfirmOutcome
		measured bool
	}{
		{"like good", 100, false, false, bisectreport.Confirmed, true},
		{"like bad", 130, false, false, bisectreport.Refuted, true},
		{"conflicts", 100, false, true, bisectreport.RevertConflict, false},
		{"does not build", 100, true, false, bisectreport.RevertNoBuild, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := storetest.SQLite(t)
			f := &revertFake{fakeProber: newFake(slowFrom(5), 5), revertValue: tc.value, revertBroken: tc.broken, added: map[string]Point{}}
			revert := func(ctx context.Context, s *Spec, culprit string) (Point, string, error) {
				if tc.conflict {
					return Point{}, "", &RevertError{Culprit: culprit, Output: "CONFLICT (content): Merge conflict in kernel/cgroup/rstat.c"}
				}
				return Point{Ref: "rev-" + culprit}, "rev-" + culprit, nil
			}
			runner := &Runner{Store: store, Prober: f, Report: func(string, ...any) {}, Revert: revert}
			b, res, err := runner.Start(context.Background(), spec)
			if err != nil || res.Culprit != "c5" {
				t.Fatalf("culprit %q: %v", res.Culprit, err)
			}
			c := res.Confirmation
			if c == nil || c.Outcome != tc.want {
				t.Fatalf("confirmation %+v, want %s", c, tc.want)
			}
			if (f.measured["revert:c5"] > 0) != tc.measured || (c.Step != nil) != tc.measured {
				t.Fatalf("revert booted %d times, step %v; measured want %v", f.measured["revert:c5"], c.Step, tc.measured)
			}
			if tc.conflict && !strings.Contains(c.Why, "Merge conflict") {
				t.Fatalf("conflict not named: %s", c.Why)
			}
			if !tc.conflict && f.added["revert:c5"].Ref != "rev-c5" {
				t.Fatalf("the revert point was not given to the prober: %+v", f.added)
			}
			stored, err := store.GetBisect(context.Background(), b.ID)
			if err != nil {
				t.Fatal(err)
			}
			_, back, err := Load(stored)
			if err != nil || back.Confirmation == nil || back.Confirmation.Outcome != tc.want || stored.Status != results.RunComplete {
				t.Fatalf("stored: %+v %v (status %s)", back.Confirmation, err, stored.Status)
			}
		})
	}
}

// A revert halfway between good and bad (the culprit is one of two equal
// changes) is called between, whatever side the noise tips a test of
// good against bad alone to: the confirmation says "partly confirmed",
// and the answer says more than one change, names the culprit and gives
// the ranges still to bisect with the command that bisects each. A
// revert like good confirms the culprit and says nothing of more
// changes.
func TestConfirmRevertBetween(t *testing.T) {
	names := commits(8)
	spec := &Spec{Names: names, Points: map[string]Point{}, Metric: "m", GitTree: "/src/linux", Good: "c0", Bad: "c8"}
	for _, n := range names {
		spec.Points[n] = Point{Ref: n}
	}
	revert := func(ctx context.Context, s *Spec, culprit string) (Point, string, error) {
		return Point{Ref: "rev-" + culprit}, "rev-" + culprit, nil
	}
	for _, tc := range []struct {
		name  string
		value float64 // the revert's figure: good is 100, bad 130
		want  bisectreport.ConfirmOutcome
	}{
		{"halfway", 114, bisectreport.RevertBetween}, // sqrt(100 * 130): halfway on the log scale
		{"like good", 100, bisectreport.Confirmed},
	} {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, seed), func(t *testing.T) {
				f := &revertFake{fakeProber: newFake(slowFrom(5), 5), revertValue: tc.value, added: map[string]Point{}}
				f.rng = rand.New(rand.NewPCG(seed, seed))
				res, err := Run(context.Background(), f, names, Options{}, nil, nil)
				if err != nil || res.Culprit != "c5" {
					t.Fatalf("culprit %q: %v", res.Culprit, err)
				}
				if err := Confirm(context.Background(), f, revert, spec, res, Options{}); err != nil {
					t.Fatal(err)
				}
				if c := res.Confirmation; c.Outcome != tc.want {
					t.Fatalf("revert at %v: %s, want %s", tc.value, c, tc.want)
				}
				m := res.MoreChanges
				if tc.want == bisectreport.Confirmed {
					if m != nil {
						t.Fatalf("a revert like good says %s", m)
					}
					return
				}
				if m == nil || fmt.Sprint(m.Names) != "[c5]" || fmt.Sprint(m.Remaining) != "[[c0 c4] [c5 c8]]" {
					t.Fatalf("more changes %+v", m)
				}
				var b strings.Builder
				writeReport(&b, 1, spec, res, nil)
				for _, want := range []string{"confirmation by revert: partly confirmed: with it reverted the bad endpoint is between good and bad",
					"more than one change in the range: with the culprit reverted the bad endpoint is between good and bad",
					"to bisect c0..c4: kregress bisect --kernel.git-tree /src/linux --good c0 --bad c4",
					"to bisect c5..c8: kregress bisect --kernel.git-tree /src/linux --good c5 --bad c8"} {
					if !strings.Contains(b.String(), want) {
						t.Errorf("report lacks %q:\n%s", want, b.String())
					}
				}
			})
		}
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// RevertPoint runs git revert on the bad commit (the tree keeps the later
// commits, loses the culprit's change), keeps it under a ref and finds it
// again; a revert a later commit conflicts with is a *RevertError.
func TestRevertPointWithGit(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	write := func(file, text, msg string) string {
		if err := os.WriteFile(filepath.Join(repo, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, repo, "add", file)
		gitIn(t, repo, "commit", "-q", "-m", msg)
		return gitIn(t, repo, "rev-parse", "HEAD")
	}
	good := write("rstat.c", "a\nb\nc\n", "base")
	culprit := write("rstat.c", "a\nb slow\nc\n", "slow")
	bad := write("other.c", "x\n", "unrelated")
	spec := &Spec{GitTree: repo, Names: []string{good, culprit, bad}, Points: map[string]Point{bad: {Ref: bad, Patches: []string{"/v.patch"}}}}
	pt, desc, err := RevertPoint(context.Background(), spec, culprit)
	if err != nil {
		t.Fatal(err)
	}
	if got := gitIn(t, repo, "show", pt.Ref+":rstat.c"); got != "a\nb\nc" {
		t.Fatalf("reverted rstat.c %q", got)
	}
	if got := gitIn(t, repo, "show", pt.Ref+":other.c"); got != "x" || len(pt.Patches) != 1 || !strings.Contains(desc, "reverted on") {
		t.Fatalf("the revert lost the later commit or the variant's patches: %q %+v %s", got, pt, desc)
	}
	if status := gitIn(t, repo, "status", "--porcelain"); status != "" || gitIn(t, repo, "rev-parse", "HEAD") != bad {
		t.Fatalf("the user's checkout was touched: %q", status)
	}
	again, _, err := RevertPoint(context.Background(), spec, culprit)
	if err != nil || again.Ref != pt.Ref {
		t.Fatalf("second revert %s, want the kept %s: %v", again.Ref, pt.Ref, err)
	}

	bad2 := write("rstat.c", "a\nb slower\nc\n", "slower")
	spec.Names[2], spec.Points[bad2] = bad2, Point{Ref: bad2}
	_, _, err = RevertPoint(context.Background(), spec, culprit)
	var re *RevertError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "conflict in rstat.c") {
		t.Fatalf("conflicting revert: %v", err)
	}
	if msg := gitIn(t, repo, "show", "-s", "--format=%s%n%b", pt.Ref); !strings.Contains(msg, `Revert "slow"`) || !strings.Contains(msg, "This reverts commit "+culprit) {
		t.Fatalf("revert message %q", msg)
	}
	if p := gitIn(t, repo, "rev-parse", pt.Ref+"^"); p != bad {
		t.Fatalf("the revert's parent is %s, want bad %s", p, bad)
	}
}

// In a series the revert is the whole series without the culprit patch.
func TestRevertPointSeries(t *testing.T) {
	spec := &Spec{Series: true, Names: []string{"0/3", "1/3", "2/3", "3/3"}, Points: map[string]Point{
		"2/3": {Ref: "v", Patches: []string{"p1", "p2"}}, "3/3": {Ref: "v", Patches: []string{"p1", "p2", "p3"}}}}
	pt, _, err := RevertPoint(context.Background(), spec, "2/3")
	if err != nil || pt.Ref != "v" || strings.Join(pt.Patches, ",") != "p1,p3" {
		t.Fatalf("series revert %+v: %v", pt, err)
	}
}

// bisect show prints the confirmation with its revert and figures.
func TestReportShowsConfirmation(t *testing.T) {
	spec := &Spec{Names: commits(2), Metric: "m", Good: "c0", Bad: "c2", Titles: map[string]string{"c1": "slow (A <a@b>)"}}
	res := &Result{Culprit: "c1", Reproduced: true, Confirmation: &Confirmation{Outcome: bisectreport.Confirmed, Revert: "abc (git revert c1 on c2)", Why: "with it reverted the bad endpoint is like good: ...",
		Step: &Step{Median: 101, N: 6, RunIDs: []int64{7, 8}}}}
	var b strings.Builder
	writeReport(&b, 1, spec, res, nil)
	for _, want := range []string{"confirmation by revert: confirmed: with it reverted", "the revert: abc (git revert c1 on c2); median 101, n=6, runs [7 8]"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	res.Confirmation = nil
	b.Reset()
	writeReport(&b, 1, spec, res, nil)
	if !strings.Contains(b.String(), "confirmation by revert: not checked") {
		t.Errorf("unchecked:\n%s", b.String())
	}
}

// The culprit report states the revert's figures and test, not its looks
// or samples (those stay in the bisect's state), in the step's own JSON
// (results/format's golden culprit report holds this step).
func TestConfirmationReport(t *testing.T) {
	step := &Step{Commit: "revert", Index: 9, Verdict: Good, Why: "like good", Median: 10.1, N: 6, PGood: 0.4, PBad: 0.001, RunIDs: []int64{20, 21},
		Samples: []float64{10, 10.2}, GoodSamples: []float64{10}, BadSamples: []float64{12}, Looks: []Look{{Step: []float64{10}}},
		Test: &Comparison{Outcome: Same, LLR: -3.2, Upper: 2.9, Lower: -2.9, Position: 0.05, PGood: 0.4, PBad: 0.001}}
	c := &Confirmation{Outcome: bisectreport.Confirmed, Revert: "r", Why: "like good", Step: step}
	r, err := c.Report()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"commit":"revert","index":9,"verdict":"good","why":"like good","median":10.1,"n":6,"p_good":0.4,"p_bad":0.001,"run_ids":[20,21],"test":{"outcome":"same","llr":-3.2,"upper":2.9,"lower":-2.9,"position":0.05,"p_good":0.4,"p_bad":0.001}}`
	if string(r.Step) != want || r.Outcome != c.Outcome || r.Revert != "r" || r.Why != c.Why || len(step.Looks) != 1 {
		t.Fatalf("report %+v, step %s", r, r.Step)
	}
	if r.String() != c.String() || (*Confirmation)(nil).String() != "not checked" {
		t.Fatalf("%q vs %q", r.String(), c.String())
	}
	if nostep, _ := (&Confirmation{Outcome: bisectreport.RevertConflict}).Report(); nostep.Step != nil {
		t.Fatalf("an unmeasured revert has a step: %s", nostep.Step)
	}
}

// A revert is called like good or like bad only once halfway is excluded
// too: a likelihood ratio past the step's bound between good and bad
// alone is not a call.
func TestRevertCall(t *testing.T) {
	bounds := func(c Comparison) Comparison { c.Upper, c.Lower, c.mid = 5, -5, true; return c }
	for _, tc := range []struct {
		name string
		c    Comparison
		want Outcome
	}{
		{"like good, halfway excluded", bounds(Comparison{Outcome: Same, LLR: -9, goodOverMid: 6, badOverMid: -3}), Same},
		{"like good over bad, not over halfway", bounds(Comparison{Outcome: Same, LLR: -9, goodOverMid: 2, badOverMid: -7}), Unsure},
		{"like bad, halfway excluded", bounds(Comparison{Outcome: Different, LLR: 9, goodOverMid: -3, badOverMid: 6}), Different},
		{"like bad over good, not over halfway", bounds(Comparison{Outcome: Different, LLR: 9, goodOverMid: -7, badOverMid: 2}), Unsure},
		{"halfway over both", bounds(Comparison{Outcome: Same, LLR: -1, goodOverMid: -6, badOverMid: -5}), Between},
		{"the step's between test", bounds(Comparison{Outcome: Between, LLR: -9, goodOverMid: 6}), Between},
		{"no halfway likelihood", Comparison{Outcome: Same, LLR: -9, Upper: 5, Lower: -5}, Unsure},
	} {
		if got := revertCall(tc.c); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// The revert merges three ways, as git revert does: a culprit whose
// context a later commit of a merged branch changed (a line beside the
// culprit's, not the culprit's own) is reverted, where applying its diff
// in reverse fails on the changed context. A later commit that changed
// the culprit's own line is still a conflict, and the error names the file.
func TestRevertPointThreeWay(t *testing.T) {
	repo := t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	var text []string
	for i := 1; i <= 40; i++ {
		text = append(text, fmt.Sprintf("line %d;", i))
	}
	commit := func(edit map[int]string, msg string) string {
		for i, l := range edit {
			text[i-1] = l
		}
		if err := os.WriteFile(filepath.Join(repo, "memcontrol.c"), []byte(strings.Join(text, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, repo, "add", "memcontrol.c")
		gitIn(t, repo, "commit", "-q", "-m", msg)
		return gitIn(t, repo, "rev-parse", "HEAD")
	}
	good := commit(nil, "base")
	culprit := commit(map[int]string{28: "line 28 slow;"}, "slow")
	// A branch from the culprit changes line 30, within the culprit's
	// diff context, and is merged.
	gitIn(t, repo, "checkout", "-q", "-b", "side")
	commit(map[int]string{30: "line 30 tidied;"}, "tidy")
	gitIn(t, repo, "checkout", "-q", "main")
	commit(map[int]string{2: "line 2 other;"}, "other")
	gitIn(t, repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	bad := gitIn(t, repo, "rev-parse", "HEAD")
	spec := &Spec{GitTree: repo, Names: []string{good, culprit, bad}, Points: map[string]Point{bad: {Ref: bad}}}
	pt, _, err := RevertPoint(context.Background(), spec, culprit)
	if err != nil {
		t.Fatalf("a revert git makes cleanly: %v", err)
	}
	want := append([]string(nil), text...)
	want[27] = "line 28;"
	if got := gitIn(t, repo, "show", pt.Ref+":memcontrol.c"); got != strings.Join(want, "\n") {
		t.Fatalf("reverted memcontrol.c:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if status := gitIn(t, repo, "status", "--porcelain"); status != "" || gitIn(t, repo, "rev-parse", "HEAD") != bad {
		t.Fatalf("the user's checkout was touched: %q", status)
	}

	// A later commit on the culprit's own line: git revert conflicts too.
	bad2 := commit(map[int]string{28: "line 28 slower;"}, "slower")
	spec.Names[2], spec.Points[bad2] = bad2, Point{Ref: bad2}
	_, _, err = RevertPoint(context.Background(), spec, culprit)
	var re *RevertError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "conflict in memcontrol.c") {
		t.Fatalf("conflicting revert: %v", err)
	}
	if status := gitIn(t, repo, "status", "--porcelain"); status != "" || gitIn(t, repo, "rev-parse", "HEAD") != bad2 {
		t.Fatalf("the user's checkout was touched by a conflict: %q", status)
	}

	// A later commit deleted the culprit's file: nothing to merge into.
	gitIn(t, repo, "rm", "-q", "memcontrol.c")
	gitIn(t, repo, "commit", "-q", "-m", "remove")
	bad3 := gitIn(t, repo, "rev-parse", "HEAD")
	spec.Names[2], spec.Points[bad3] = bad3, Point{Ref: bad3}
	_, _, err = RevertPoint(context.Background(), spec, culprit)
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "memcontrol.c: does not exist") {
		t.Fatalf("revert of a deleted file: %v", err)
	}
}

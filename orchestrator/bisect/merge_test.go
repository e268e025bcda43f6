package bisect

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/store/storetest"
)

// gitFake measures the commits of a real repository: a commit is 30%
// slower when the slow commit is among its ancestors; a revert point
// ("revert:...") measures like good. Points added later (the merged
// branch's, the revert) are recorded.
type gitFake struct {
	repo, slow string
	rng        *rand.Rand
	added      map[string]Point
	ancestor   map[string]bool
}

func (f *gitFake) AddPoint(name string, pt Point) { f.added[name] = pt }

func (f *gitFake) Build(_ context.Context, c string) (string, error) { return "image-" + c, nil }

func (f *gitFake) value(c string) float64 {
	if c == "" || strings.HasPrefix(c, "revert:") {
		return 100
	}
	slow, ok := f.ancestor[c]
	if !ok {
		slow = exec.Command("git", "-C", f.repo, "merge-base", "--is-ancestor", f.slow, c).Run() == nil
		f.ancestor[c] = slow
	}
	if slow {
		return 130
	}
	return 100
}

func (f *gitFake) Measure(_ context.Context, step, good, bad string, reps int) (*Samples, error) {
	s := &Samples{}
	for _, p := range []struct {
		c   string
		out *[]float64
	}{{step, &s.Step}, {good, &s.Good}, {bad, &s.Bad}} {
		if p.c == "" {
			continue
		}
		for k := 0; k < reps; k++ {
			*p.out = append(*p.out, f.value(p.c)+3*f.rng.NormFloat64())
		}
	}
	return s, nil
}

// mergeRepo makes main: good, a1, a2, M (merges side --no-ff), a3 (bad);
// side from good: s1, s2 (the slow change), s3. It returns the repo,
// good, the slow commit, the merge and bad.
func mergeRepo(t *testing.T) (repo, good, slow, merge, bad string) {
	repo = t.TempDir()
	gitIn(t, repo, "init", "-q", "-b", "main")
	n := 0
	commit := func(msg string) string {
		n++
		file := filepath.Join(repo, msg+".c")
		if err := os.WriteFile(file, []byte(msg+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, repo, "add", msg+".c")
		gitIn(t, repo, "commit", "-q", "-m", msg)
		return gitIn(t, repo, "rev-parse", "HEAD")
	}
	good = commit("base")
	gitIn(t, repo, "checkout", "-q", "-b", "side")
	commit("s1")
	slow = commit("s2")
	commit("s3")
	gitIn(t, repo, "checkout", "-q", "main")
	commit("a1")
	commit("a2")
	gitIn(t, repo, "merge", "-q", "--no-ff", "-m", "merge side", "side")
	merge = gitIn(t, repo, "rev-parse", "HEAD")
	bad = commit("a3")
	return repo, good, slow, merge, bad
}

// The merged branch is the second parent's commits the first parent
// cannot reach, from the merge-base, oldest first.
func TestMergedBranch(t *testing.T) {
	repo, good, slow, merge, _ := mergeRepo(t)
	names, titles, err := MergedBranch(context.Background(), repo, merge)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 4 || names[0] != good || names[2] != slow || !strings.HasPrefix(titles[slow], "s2 (") {
		t.Fatalf("merged branch %v %v", names, titles)
	}
	if _, _, err := MergedBranch(context.Background(), repo, slow); err != errNotMerge {
		t.Fatalf("a one-parent commit: %v", err)
	}
}

// A change made on a side branch and merged --no-ff: the first-parent
// search names the merge, the session descends into the merged branch,
// names the commit inside and confirms it by reverting it on bad; the
// merge stays in the result and the report.
func TestDescendsIntoMergedBranch(t *testing.T) {
	repo, _, slow, merge, bad := mergeRepo(t)
	// main~4 is good: the first-parent range is good, a1, a2, merge, a3.
	spec, err := CommitRange(context.Background(), repo, "main~4", "main")
	if err != nil {
		t.Fatal(err)
	}
	spec.Metric = "m"
	st := storetest.SQLite(t)
	f := &gitFake{repo: repo, slow: slow, rng: rand.New(rand.NewPCG(1, 2)), added: map[string]Point{}, ancestor: map[string]bool{}}
	runner := &Runner{Store: st, Prober: f, Report: func(string, ...any) {}}
	b, res, err := runner.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Culprit != slow || res.Merge == nil || res.Merge.Commit != merge || res.Merge.Culprit != slow {
		t.Fatalf("culprit %.12s, merge %+v; want %.12s inside merge %.12s", res.Culprit, res.Merge, slow, merge)
	}
	if c := res.Confirmation; c == nil || c.Outcome != bisectreport.Confirmed || !strings.Contains(c.Revert, "culprit "+slow[:12]) {
		t.Fatalf("confirmation %+v", c)
	}
	if _, ok := f.added[slow]; !ok {
		t.Fatalf("the merged branch's commits were not given to the prober: %v", f.added)
	}
	if got := gitIn(t, repo, "rev-parse", "HEAD"); got != bad {
		t.Fatalf("the checkout moved to %s", got)
	}
	stored, err := st.GetBisect(context.Background(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	_, back, err := Load(stored)
	if err != nil || back.Merge == nil || back.Merge.Culprit != slow || !back.Merge.Done {
		t.Fatalf("stored merge %+v: %v", back.Merge, err)
	}
	sum := Summarize(b.ID, spec, res, nil)
	if !strings.Contains(sum.Merge, merge[:12]) || sum.Culprit.Name != slow || !strings.HasPrefix(sum.Culprit.Title, "s2") {
		t.Fatalf("report: merge %q, culprit %+v", sum.Merge, sum.Culprit)
	}
}

package bisect

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
)

// A bisect searches bad's first parents, so a change committed on a side
// branch and merged with --no-ff is first seen at the merge. The merge is
// then not the answer a kernel developer wants: as git bisect does, the
// search descends into the merged branch - the commits of the merge's
// second parent that its first parent cannot reach (git rev-list
// ^first second), from their merge-base - and bisects them on their own.
// The commit named inside replaces the merge as the culprit (and is what
// the revert confirms); the report shows the merge too. When the branch
// alone does not show the change (it comes from the merge itself: a
// conflict resolved one way, or the branch meeting a mainline change),
// the merge stays the culprit and the report says why.

// Merge is the descent into a merged branch.
type Merge struct {
	// Commit is the merge the first-parent search named.
	Commit string `json:"commit"`
	// Branch are the points searched inside: the merge-base, then the
	// second parent's first-parent commits not reachable from the first
	// parent, oldest first.
	Branch []string `json:"branch"`
	// Titles of the branch's commits, for the report.
	Titles map[string]string `json:"titles,omitempty"`
	// Culprit is the commit named inside ("" when none was: the merge
	// stays the culprit).
	Culprit string `json:"culprit,omitempty"`
	// Steps are the inner search's steps (a resumed descent replays
	// them); Done once it ended.
	Steps []Step `json:"steps,omitempty"`
	Done  bool   `json:"done,omitempty"`
	Why   string `json:"why"`
}

// String is the merge as the report says it.
func (m *Merge) String() string {
	if m == nil {
		return ""
	}
	if m.Culprit != "" {
		return fmt.Sprintf("the first-parent search named merge %.12s; inside its merged branch (%d commits) the culprit is %.12s: %s", m.Commit, len(m.Branch)-1, m.Culprit, m.Why)
	}
	return fmt.Sprintf("the culprit is merge %.12s: %s", m.Commit, m.Why)
}

// errNotMerge: the commit has one parent.
var errNotMerge = errors.New("not a merge commit")

// MergedBranch returns the points of merge's merged branch: the
// merge-base of its first two parents, then the commits along the second
// parent's first parents that the first parent cannot reach, oldest
// first, with their titles. errNotMerge when merge has one parent.
func MergedBranch(ctx context.Context, tree, merge string) (names []string, titles map[string]string, err error) {
	gd := gitDir(tree)
	out, err := gitOut(ctx, gd, nil, nil, "rev-list", "--parents", "-n", "1", merge)
	if err != nil {
		return nil, nil, fmt.Errorf("bisect: the parents of %.12s: %w", merge, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return nil, nil, errNotMerge
	}
	first, second := f[1], f[2]
	out, err = gitOut(ctx, gd, nil, nil, "merge-base", first, second)
	if err != nil {
		return nil, nil, fmt.Errorf("bisect: the merge-base of %.12s's parents: %w", merge, err)
	}
	base := strings.TrimSpace(string(out))
	out, err = gitOut(ctx, gd, nil, nil, "log", "--first-parent", "--reverse", "--format=%H%x09%s%x09%an <%ae>", second, "^"+first)
	if err != nil {
		return nil, nil, fmt.Errorf("bisect: the merged branch of %.12s: %w", merge, err)
	}
	names, titles = []string{base}, map[string]string{base: "(merge-base) "}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 3 {
			continue
		}
		names = append(names, f[0])
		titles[f[0]] = f[1] + " (" + f[2] + ")"
	}
	return names, titles, nil
}

// descend replaces a merge culprit by the commit inside its merged branch
// that made the change (package comment above). It does nothing in
// series mode, without a git tree (points that are not commits), for a
// culprit that is not a merge, or for a prober that cannot be given new
// points. prev is a resumed descent (nil: none).
func (s *Runner) descend(ctx context.Context, spec *Spec, res *Result, opts Options, prev *Merge, save func(*Result)) error {
	if spec.Series || spec.GitTree == "" || res.Culprit == "" {
		return nil
	}
	if prev != nil && prev.Done {
		res.Merge = prev
		if prev.Culprit != "" {
			res.Culprit = prev.Culprit
		}
		return nil
	}
	names, titles, err := MergedBranch(ctx, spec.GitTree, res.Culprit)
	if errors.Is(err, errNotMerge) {
		return nil
	}
	if err != nil {
		return err
	}
	m := &Merge{Commit: res.Culprit, Branch: names, Titles: titles}
	if prev != nil && prev.Commit == m.Commit {
		m.Steps = prev.Steps
	}
	res.Merge = m
	pa, ok := s.Prober.(pointAdder)
	switch {
	case len(names) < 2:
		m.Done, m.Why = true, "its second parent holds no commit the first cannot reach"
		return nil
	case !ok:
		m.Done, m.Why = true, "this prober cannot measure the merged branch's commits"
		return nil
	}
	// The branch's points carry what the merge's point carries on top
	// of its commit (the variant's patches).
	patches := spec.Points[m.Commit].Patches
	for _, n := range names {
		pa.AddPoint(n, Point{Ref: n, Patches: patches})
	}
	s.Report("bisect: %.12s is a merge: bisecting its merged branch, %d commit(s) from the merge-base %.12s", m.Commit, len(names)-1, names[0])
	inner := opts
	inner.Range = len(names) - 1
	sub, err := Run(ctx, s.Prober, names, inner, m.Steps, func(r *Result) {
		m.Steps = r.Steps
		save(res)
	})
	if sub != nil {
		m.Steps = sub.Steps
	}
	switch {
	case errors.Is(err, ErrNotReproduced):
		m.Why = "the merged branch alone (merge-base to second parent) does not show the change: it comes from the merge itself"
	case err != nil:
		return fmt.Errorf("bisect: inside merge %.12s: %w", m.Commit, err)
	case sub.Culprit != "":
		m.Culprit = sub.Culprit
		m.Why = "named by the same search over the merged branch, good at the merge-base"
		res.Culprit = sub.Culprit
		// Both searches must be right: their error bounds add.
		res.Confidence = math.Max(0, res.Confidence+sub.Confidence-1)
		res.ConfidenceWhy = fmt.Sprintf("the first-parent search's bound and the merged branch's search's, added: %s", res.ConfidenceWhy)
	case len(sub.Range) == 0:
		m.Why = "inside the merged branch the search named nothing: the merge is named"
	default:
		m.Why = fmt.Sprintf("inside the merged branch the search ended as a range of %d commits (%.12s .. %.12s): the merge is named", len(sub.Range), sub.Range[0], sub.Range[len(sub.Range)-1])
	}
	m.Done = true
	save(res)
	return nil
}

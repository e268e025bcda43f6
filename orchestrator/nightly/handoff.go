package nightly

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kregress/kregress/internal/shellquote"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
)

// HandoffSpec is what a night knows to hand off: the experiment as the
// user named it (for -c), its git tree, and the runs compared.
type HandoffSpec struct {
	Experiment string
	GitTree    string
	Base       []*results.Result
	Tonight    []*results.Result
}

// handOff attaches a Handoff to every failing case of res: the commit
// range from the baseline's kernel of its variant to tonight's, and the
// bisect command for its kind.
func handOff(ctx context.Context, res *nightreport.Result, hs HandoffSpec) {
	ranges := map[string]*nightreport.Handoff{}
	drive, also := metricDrivers(res.Cases)
	for i := range res.Cases {
		c := &res.Cases[i]
		if c.Status != nightreport.CaseFailure || c.Kind == "" || c.Variant == "" {
			continue
		}
		r, ok := ranges[c.Variant]
		if !ok {
			r = commitRange(ctx, c.Variant, hs)
			ranges[c.Variant] = r
		}
		h := *r
		h.Kind, h.Experiment = c.Kind, hs.Experiment
		if c.Kind == nightreport.KindMetric {
			// The variant's regressed metrics share the range: one
			// bisect, driven by the most significant.
			h.Metric, h.Also = drive[c.Variant], also[c.Variant]
		}
		if c.Kind == nightreport.KindKernelReport {
			h.Note = "a crash bisect counts a kernel report only when it fails the kernel: for a WARNING, set vm.panic_on_warn: true in the experiment"
		}
		if h.NoRange == "" {
			h.Args = bisectArgs(hs, &h)
			h.Command = "kregress " + shellquote.Join(h.Args)
		}
		c.Bisect = &h
	}
}

// metricDrivers picks, per variant, the regressed metric that drives its
// one bisect (the smallest q: the most significant; the first listed of
// equals) and the others, checked at its culprit.
func metricDrivers(cases []nightreport.Case) (drive map[string]string, also map[string][]string) {
	drive, also = map[string]string{}, map[string][]string{}
	best := map[string]float64{}
	for _, c := range cases {
		if c.Status != nightreport.CaseFailure || c.Kind != nightreport.KindMetric || c.Variant == "" {
			continue
		}
		q := 1.0
		if c.Metric != nil {
			q = c.Metric.Q
		}
		if _, ok := drive[c.Variant]; !ok || q < best[c.Variant] {
			drive[c.Variant], best[c.Variant] = c.Name, q
		}
	}
	for _, c := range cases {
		if c.Status == nightreport.CaseFailure && c.Kind == nightreport.KindMetric && c.Variant != "" && c.Name != drive[c.Variant] {
			also[c.Variant] = append(also[c.Variant], c.Name)
		}
	}
	return drive, also
}

// commitRange finds variant's commits in the baseline's and tonight's
// provenance and counts the first-parent commits between them.
func commitRange(ctx context.Context, variant string, hs HandoffSpec) *nightreport.Handoff {
	h := &nightreport.Handoff{Variant: variant}
	good, gsrc := commitOf(results.OfVariant(hs.Base, variant))
	bad, bsrc := commitOf(results.OfVariant(hs.Tonight, variant))
	switch {
	case good == "" || bad == "":
		src := gsrc
		if good != "" {
			src = bsrc
		}
		h.NoRange = fmt.Sprintf("the %s kernels are not commits of a git tree (source %s): measure with kernel.source git (nightly --branch) to get a range", variant, src)
	case hs.GitTree == "":
		h.NoRange = "kernel.git_tree is not set: no repository to count and bisect the commits in"
	case good == bad:
		h.NoRange = fmt.Sprintf("the baseline and tonight measured the same commit %.12s: the change is not in the kernel's commits (host, configuration or noise)", good)
	default:
		h.Good, h.Bad = good, bad
		n, err := firstParentCount(ctx, hs.GitTree, good, bad)
		if err != nil {
			h.Good, h.Bad, h.NoRange = "", "", err.Error()
		} else {
			h.Commits = n
		}
	}
	return h
}

// commitOf is the git commit the results' kernel was built from ("" and
// its source id when it was not a clean commit).
func commitOf(rs []*results.Result) (commit, source string) {
	for _, r := range rs {
		if p := r.Provenance; p.ConfigSHA256 != "" || p.SourceID != "" {
			if p.GitCommit != "" && !p.Dirty {
				return p.GitCommit, p.SourceID
			}
			if p.Dirty {
				return "", "a dirty tree at " + p.GitCommit
			}
			return "", p.SourceID
		}
	}
	return "", "unknown"
}

// firstParentCount counts good..bad along bad's first parents, refusing
// a good that is not an ancestor (a rebased branch).
func firstParentCount(ctx context.Context, tree, good, bad string) (int, error) {
	git := func(args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, "git", append([]string{"-C", tree}, args...)...)
	}
	if err := git("merge-base", "--is-ancestor", good, bad).Run(); err != nil {
		return 0, fmt.Errorf("the baseline's commit %.12s is not an ancestor of tonight's %.12s in %s (a rebased branch?): bisect needs a good ancestor", good, bad, tree)
	}
	out, err := git("rev-list", "--first-parent", "--count", good+".."+bad).Output()
	if err != nil {
		return 0, fmt.Errorf("git rev-list %.12s..%.12s in %s: %w", good, bad, tree, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count printed %q", out)
	}
	return n, nil
}

// bisectArgs are the kregress bisect arguments for h.
func bisectArgs(hs HandoffSpec, h *nightreport.Handoff) []string {
	args := []string{"bisect", "-c", hs.Experiment, "--kernel.git-tree", hs.GitTree,
		"--good", fmt.Sprintf("%.12s", h.Good), "--bad", fmt.Sprintf("%.12s", h.Bad), "--variant", h.Variant}
	if h.Kind.Crash() {
		return append(args, "--crash")
	}
	return append(args, "--metric", h.Metric)
}

// experimentArg is the experiment as a bisect command names it: a file
// made absolute (the command may run elsewhere), a built-in name as is.
func experimentArg(named string) string {
	if st, err := os.Stat(named); err == nil && !st.IsDir() {
		if abs, err := filepath.Abs(named); err == nil {
			return abs
		}
	}
	return named
}

// BisectOutcome is what a handed-off bisect found, for the night's
// reports.
type BisectOutcome struct {
	ID           int64
	Culprit      string // "abc123456789 subject", or "" (none named)
	Confirmation string // the confirmation's outcome, or the bisect's end
	// Metrics: the other metrics judged at the culprit (Handoff.Also),
	// each in one line.
	Metrics []string
	// Href: its report relative to the HTML page ("": none).
	Href string
}

// LinkBisect records on every case handed off as key the bisect that ran
// for it, and links the red night's trend of that metric (HTML page) to
// it; a crash kind, which has no trend, gets a note.
func LinkBisect(night []*nightreport.Result, key string, o BisectOutcome) {
	for _, r := range night {
		linked := false
		for i := range r.Cases {
			h := r.Cases[i].Bisect
			if h == nil || h.Key() != key {
				continue
			}
			h.BisectID, h.Culprit, h.Confirmation = o.ID, o.Culprit, o.Confirmation
			if linked {
				continue
			}
			linked = true
			text := fmt.Sprintf("%s %s: ", h.Variant, map[bool]string{true: "kernel failures", false: h.Metric}[h.Kind.Crash()]) + h.Found()
			for _, m := range o.Metrics {
				text += "; " + m
			}
			if !h.Kind.Crash() && len(r.RunIDs) > 0 {
				for k := range r.Trends {
					t := &r.Trends[k]
					if t.Variant == h.Variant && t.Metric == h.Metric {
						t.Bisects = append(t.Bisects, trendreport.BisectLink{RunID: r.RunIDs[0], ID: o.ID, Text: h.Found(), Href: o.Href})
					}
				}
			}
			r.Notes = append(r.Notes, text)
		}
	}
}

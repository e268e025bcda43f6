package nightly

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kregress/kregress/internal/shellquote"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/trendreport"
)

// Kind is what a judged case is about; a failing one picks the bisect
// that can find its culprit (a metric bisect, or --crash).
type Kind string

// Case kinds.
const (
	KindMetric       Kind = "metric"
	KindFailureRate  Kind = "failure rate"
	KindKernelReport Kind = "kernel report"
	KindSelftests    Kind = "selftests"
)

// Crash: the kind is found by a crash bisect (kregress bisect --crash
// counts kernel failures and selftests that good never fails), not a
// metric bisect.
func (k Kind) Crash() bool { return k != KindMetric }

// Handoff is a regression handed to bisect: the commits since the last
// good night and the command that searches them. When the variant's
// kernels are not commits of a git tree, Range is empty and NoRange says
// why.
type Handoff struct {
	// Experiment as bisect -c takes it (a file made absolute, or a
	// built-in name).
	Experiment string `json:"experiment"`
	Variant    string `json:"variant"`
	Kind       Kind   `json:"kind"`
	Metric     string `json:"metric,omitempty"` // Kind metric
	// Good is the last good night's commit, Bad tonight's (full ids).
	Good string `json:"good,omitempty"`
	Bad  string `json:"bad,omitempty"`
	// Commits: first-parent commits in Good..Bad (what bisect searches).
	Commits int    `json:"commits,omitempty"`
	NoRange string `json:"no_range,omitempty"`
	// Note: what the bisect cannot see of this kind, if anything.
	Note string `json:"note,omitempty"`
	// Command is the exact kregress bisect command line; empty with
	// NoRange.
	Command string `json:"command,omitempty"`
	// Args are Command's arguments after "kregress" (nightly --bisect
	// runs them).
	Args []string `json:"-"`
	// BisectID: the bisect nightly --bisect ran for it (0: none).
	BisectID int64 `json:"bisect_id,omitempty"`
	// Culprit, Confirmation: what that bisect found (set by nightly
	// --bisect).
	Culprit      string `json:"culprit,omitempty"`
	Confirmation string `json:"confirmation,omitempty"`
}

// Range is the commit range as git writes it, with its size.
func (h *Handoff) Range() string {
	if h.Good == "" {
		return ""
	}
	return fmt.Sprintf("%.12s..%.12s (%d commit%s, first-parent)", h.Good, h.Bad, h.Commits, map[bool]string{true: "", false: "s"}[h.Commits == 1])
}

// Key identifies the bisect a hand-off asks for: regressions with the
// same key are one bisect (several kernel reports of one variant are one
// crash bisect).
func (h *Handoff) Key() string { return h.Command }

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
func handOff(ctx context.Context, res *Result, hs HandoffSpec) {
	ranges := map[string]*Handoff{}
	for i := range res.Cases {
		c := &res.Cases[i]
		if c.Status != CaseFailure || c.Kind == "" || c.Variant == "" {
			continue
		}
		r, ok := ranges[c.Variant]
		if !ok {
			r = commitRange(ctx, c.Variant, hs)
			ranges[c.Variant] = r
		}
		h := *r
		h.Kind, h.Experiment = c.Kind, hs.Experiment
		if c.Kind == KindMetric {
			h.Metric = c.Name
		}
		if c.Kind == KindKernelReport {
			h.Note = "a crash bisect counts a kernel report only when it fails the kernel: for a WARNING, set vm.panic_on_warn: true in the experiment"
		}
		if h.NoRange == "" {
			h.Args = bisectArgs(hs, &h)
			h.Command = "kregress " + shellquote.Join(h.Args)
		}
		c.Bisect = &h
	}
}

// commitRange finds variant's commits in the baseline's and tonight's
// provenance and counts the first-parent commits between them.
func commitRange(ctx context.Context, variant string, hs HandoffSpec) *Handoff {
	h := &Handoff{Variant: variant}
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
func bisectArgs(hs HandoffSpec, h *Handoff) []string {
	args := []string{"bisect", "-c", hs.Experiment, "--kernel.git-tree", hs.GitTree,
		"--good", fmt.Sprintf("%.12s", h.Good), "--bad", fmt.Sprintf("%.12s", h.Bad), "--variant", h.Variant}
	if h.Kind.Crash() {
		return append(args, "--crash")
	}
	return append(args, "--metric", h.Metric)
}

// Handoffs are the distinct bisects the night asks for, in case order.
func Handoffs(night []*Result) []*Handoff {
	var out []*Handoff
	seen := map[string]bool{}
	for _, r := range night {
		for i := range r.Cases {
			h := r.Cases[i].Bisect
			if h == nil || h.Command == "" || seen[h.Key()] {
				continue
			}
			seen[h.Key()] = true
			out = append(out, h)
		}
	}
	return out
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

// Text is the hand-off as plain lines: the range, the command, and what
// nightly --bisect found.
func (h *Handoff) Text() string {
	if h.Command == "" {
		return "bisect: no commit range: " + h.NoRange
	}
	s := "commits since the last good night: " + h.Range() + "\nfind the culprit: " + h.Command
	if h.Note != "" {
		s += "\n(" + h.Note + ")"
	}
	if h.BisectID != 0 {
		s += "\n" + h.outcome()
	}
	return s
}

// Markdown is the hand-off as one Markdown line.
func (h *Handoff) Markdown() string {
	if h.Command == "" {
		return "no commit range to bisect: " + h.NoRange
	}
	s := fmt.Sprintf("since the last good night: `%s`; find the culprit: `%s`", h.Range(), h.Command)
	if h.Note != "" {
		s += " (" + h.Note + ")"
	}
	if h.BisectID != 0 {
		s += "; " + h.outcome()
	}
	return s
}

func (h *Handoff) outcome() string {
	s := fmt.Sprintf("bisect %d", h.BisectID)
	if h.Culprit != "" {
		s += ": culprit " + h.Culprit
	}
	if h.Confirmation != "" {
		s += " (" + h.Confirmation + ")"
	}
	return s + fmt.Sprintf(" - kregress bisect show %d", h.BisectID)
}

func addHandoffProperties(s *junit.Testsuite, prefix string, h *Handoff) {
	s.AddProperty(prefix+"variant", h.Variant)
	s.AddProperty(prefix+"kind", string(h.Kind))
	s.AddProperty(prefix+"range", h.Range())
	s.AddProperty(prefix+"command", h.Command)
	if h.BisectID != 0 {
		s.AddProperty(prefix+"id", fmt.Sprint(h.BisectID))
		s.AddProperty(prefix+"culprit", h.Culprit)
		s.AddProperty(prefix+"confirmation", h.Confirmation)
	}
}

// MarshalJSON adds the range as git writes it beside the commits.
func (h *Handoff) MarshalJSON() ([]byte, error) {
	type plain Handoff
	return json.Marshal(struct {
		*plain
		Range string `json:"range,omitempty"`
	}{(*plain)(h), h.Range()})
}

// BisectOutcome is what a handed-off bisect found, for the night's
// reports.
type BisectOutcome struct {
	ID           int64
	Culprit      string // "abc123456789 subject", or "" (none named)
	Confirmation string // the confirmation's outcome, or the bisect's end
	// Href: its report relative to the HTML page ("": none).
	Href string
}

// LinkBisect records on every case handed off as key the bisect that ran
// for it, and links the red night's trend of that metric (HTML page) to
// it; a crash kind, which has no trend, gets a note.
func LinkBisect(night []*Result, key string, o BisectOutcome) {
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
			text := fmt.Sprintf("%s %s: ", h.Variant, map[bool]string{true: "kernel failures", false: h.Metric}[h.Kind.Crash()]) + h.outcome()
			if !h.Kind.Crash() && len(r.RunIDs) > 0 {
				for k := range r.Trends {
					t := &r.Trends[k]
					if t.Variant == h.Variant && t.Metric == h.Metric {
						t.Bisects = append(t.Bisects, trendreport.BisectLink{RunID: r.RunIDs[0], ID: o.ID, Text: h.outcome(), Href: o.Href})
					}
				}
			}
			r.Notes = append(r.Notes, text)
		}
	}
}

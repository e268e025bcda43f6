// Package nightreport is what a nightly found, as its reports read it:
// each experiment's night (its verdict, judged cases, shifts over the
// nights, trends and notes) and the regressions it hands to bisect. The
// nightly (orchestrator/nightly) fills it; results/format renders it. It
// holds plain data and the few methods that read it, never judging or
// I/O, so the renderers below the orchestrator can import it.
package nightreport

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// CaseStatus is one JUnit test case's result.
type CaseStatus string

// Case statuses, as JUnit has them.
const (
	CasePass    CaseStatus = "pass"
	CaseFailure CaseStatus = "failure" // a regression
	CaseError   CaseStatus = "error"   // build, boot, crash or infrastructure
	CaseSkipped CaseStatus = "skipped" // too little data to judge
)

// Case is one judged thing: a variant's metric, failure rate, kernel
// reports, selftests.
type Case struct {
	Variant string     `json:"variant"`
	Name    string     `json:"name"`
	Status  CaseStatus `json:"status"`
	Message string     `json:"message,omitempty"`
	Detail  string     `json:"detail,omitempty"`
	// Kind says what a failing case is: it picks the bisect that can
	// find its culprit.
	Kind Kind `json:"kind,omitempty"`
	// Metric: a metric case's figures, as its report states them.
	Metric *compare.Change `json:"metric,omitempty"`
	// Bisect: a regression's commit range and bisect command.
	Bisect *Handoff `json:"bisect,omitempty"`
}

// Shift is a change point in a variant's metric over the nights.
type Shift struct {
	Variant string  `json:"variant"`
	Metric  string  `json:"metric"`
	RunID   int64   `json:"run_id"` // the first night after the shift
	Night   string  `json:"night"`  // its date
	Before  float64 `json:"before"`
	After   float64 `json:"after"`
	Pct     float64 `json:"change_pct"`
	P       float64 `json:"p"`
}

// Result is one experiment's night.
type Result struct {
	Experiment string `json:"experiment"`
	// Outcome is stored as the word the night's reports head with
	// (verdict.Night.Word).
	Outcome    verdict.Night `json:"verdict"`
	RunIDs     []int64       `json:"run_ids"` // tonight's runs (more than one with extra repetitions)
	BaselineID int64         `json:"baseline_run_id,omitempty"`
	Baseline   string        `json:"baseline,omitempty"` // why it is the baseline (good / accepted by ...)
	Commit     string        `json:"commit,omitempty"`
	Describe   string        `json:"describe,omitempty"`
	ConfigSHA  string        `json:"config_sha256,omitempty"`
	Cases      []Case        `json:"cases"`
	Shifts     []Shift       `json:"shifts"`
	// Trends: each variant's metric over the comparable nights, for the
	// HTML trend page.
	Trends   []trendreport.Trend `json:"-"`
	Notes    []string            `json:"notes"`
	Error    string              `json:"error,omitempty"`
	Started  time.Time           `json:"started"`
	Finished time.Time           `json:"finished"`
	// Looks: how the night's looks went, given when the experiment set
	// a budget for them (looks.max_minutes, looks.max_boots).
	Looks *Looks `json:"looks,omitempty"`
}

// Looks is how a night's looks went within its budget: taken of
// planned, and why it looked no more (judging.Stop: "decided", "max
// looks" or "budget"); with "budget", Budget says which round was
// refused and what it would have passed.
type Looks struct {
	Taken   int    `json:"taken"`
	Planned int    `json:"planned"`
	Stopped string `json:"stopped"`
	Budget  string `json:"budget,omitempty"`
}

// Worst is the most severe outcome of a night.
func Worst(rs []*Result) verdict.Night {
	w := verdict.NightPass
	for _, r := range rs {
		w = verdict.Worse(w, r.Outcome)
	}
	return w
}

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
	// Also: the variant's other metrics regressed over the same range;
	// one bisect, driven by Metric, checks them at its culprit from the
	// same boots (nightly --bisect).
	Also []string `json:"also,omitempty"`
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

// Found is what the hand-off's bisect found, in one line: a night's
// note, its trend page's link and every report of the hand-off say it
// alike.
func (h *Handoff) Found() string {
	s := fmt.Sprintf("bisect %d", h.BisectID)
	if h.Culprit != "" {
		s += ": culprit " + h.Culprit
	}
	if h.Confirmation != "" {
		s += " (" + h.Confirmation + ")"
	}
	return s + fmt.Sprintf(" - kregress bisect show %d", h.BisectID)
}

// MarshalJSON adds the range as git writes it beside the commits.
func (h *Handoff) MarshalJSON() ([]byte, error) {
	type plain Handoff
	return json.Marshal(struct {
		*plain
		Range string `json:"range,omitempty"`
	}{(*plain)(h), h.Range()})
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

// MarkRow is one mark of a run as `baseline list` (and its --json)
// shows it: the nightly's good mark or a baseline accepted by hand.
type MarkRow struct {
	RunID  int64     `json:"run"`
	Kind   string    `json:"kind"` // good (a nightly passed) or accepted (baseline accept)
	At     time.Time `json:"at"`
	Who    string    `json:"who"`
	Reason string    `json:"reason"`
}

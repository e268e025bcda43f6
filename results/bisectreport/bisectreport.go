// Package bisectreport is a bisect's culprit report as a maintainer acts on
// it, like the 0-day bot's mails: what changed, the culprit with its
// author and date, whether reverting it undoes the change, what it cost,
// the kernel configuration, and the commands that reproduce it. The
// bisect (orchestrator/bisect) fills it; results/format renders it
// (Markdown, JSON, JUnit, a mail body). It holds plain data, never a
// search, a test or I/O, so the renderers below the orchestrator can
// import it.
package bisectreport

import (
	"encoding/json"

	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/verdict"
)

// Report is one bisect's culprit report.
type Report struct {
	BisectID   int64          `json:"bisect_id"`
	Outcome    verdict.Bisect `json:"outcome"`
	Experiment string         `json:"experiment"`
	Variant    string         `json:"variant,omitempty"`
	Metric     string         `json:"metric"`
	Crash      bool           `json:"crash,omitempty"`
	Good       string         `json:"good"`
	Bad        string         `json:"bad"`
	// Commits: the points searched after good (commits, or patches).
	Commits int  `json:"commits"`
	Series  bool `json:"series,omitempty"`
	// Change: the endpoints as the bisect measured them (metric mode).
	// The bisect tests one metric, so q = p.
	Change *compare.Change `json:"change,omitempty"`
	// CrashRate: crash mode, the bad endpoint's failures.
	CrashRate string `json:"crash_rate,omitempty"`
	// Night: the nightly regression this bisect was handed, if any.
	Night   *Origin `json:"night,omitempty"`
	Culprit *Commit `json:"culprit,omitempty"`
	// Candidates: skips left these (inconclusive).
	Candidates   []string      `json:"candidates,omitempty"`
	Confidence   float64       `json:"confidence"`
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Boots: cells booted for this bisect (its steps' runs and the
	// confirmation's); Steps: the points measured.
	Boots  int          `json:"boots"`
	Steps  int          `json:"measured_steps"`
	Kernel KernelConfig `json:"kernel"`
	// Reproduce: commands that run it again, or show it.
	Reproduce []string `json:"reproduce"`
	Error     string   `json:"error,omitempty"`
}

// Commit is the culprit as git log shows it (a series patch: its mail
// headers; no describe).
type Commit struct {
	ID       string `json:"id"`
	Subject  string `json:"subject"`
	Author   string `json:"author"`
	Date     string `json:"date,omitempty"`
	Describe string `json:"describe,omitempty"`
}

// KernelConfig is the measured kernels' configuration, from the runs'
// provenance.
type KernelConfig struct {
	BaseConfig   string `json:"base_config,omitempty"`
	ConfigSHA256 string `json:"config_sha256,omitempty"`
	Preemption   string `json:"preemption,omitempty"`
	Compiler     string `json:"compiler,omitempty"`
	Accel        string `json:"accel,omitempty"`
	VCPUs        int    `json:"vcpus,omitempty"`
}

// Origin is the nightly regression a bisect was handed (nightly
// --bisect), kept with the bisect so its report states what the night
// saw.
type Origin struct {
	Experiment    string  `json:"experiment"`
	NightRunIDs   []int64 `json:"night_run_ids"`
	BaselineRunID int64   `json:"baseline_run_id"`
	// Regression is the night's case as it printed it.
	Regression string `json:"regression"`
	// Change: a metric regression's figures (nil for a crash kind).
	Change *compare.Change `json:"change,omitempty"`
}

// ConfirmOutcome is what reverting the culprit showed (KernelCI's
// check): only a revert called like good confirms it.
type ConfirmOutcome string

// Confirmation outcomes.
const (
	Confirmed      ConfirmOutcome = "confirmed"             // the revert is like good
	Refuted        ConfirmOutcome = "not confirmed"         // the revert is still like bad
	RevertConflict ConfirmOutcome = "revert does not apply" // later commits changed the culprit's lines
	RevertNoBuild  ConfirmOutcome = "revert does not build"
	RevertUnsure   ConfirmOutcome = "unsure" // measured, no call (undecided or crashed)
	// RevertBetween: the revert is between good and bad, like neither:
	// the culprit is one change of more than one.
	RevertBetween ConfirmOutcome = "partly confirmed"
)

// Confirmation is the revert's result as the report states it.
type Confirmation struct {
	Outcome ConfirmOutcome `json:"outcome"`
	// Revert names the reverted kernel: the revert commit on top of bad
	// (commit mode), or the series without the culprit patch.
	Revert string `json:"revert,omitempty"`
	Why    string `json:"why"`
	// Step is the revert measured as a bisect step, its figures and test
	// without its looks (those stay in the bisect's state), in the
	// bisect's own JSON (orchestrator/bisect.Step): the report passes it
	// on and no renderer reads into it. Empty when it was not measured.
	Step json.RawMessage `json:"step,omitempty"`
}

// String is the confirmation in one line.
func (c *Confirmation) String() string {
	if c == nil {
		return "not checked"
	}
	return string(c.Outcome) + ": " + c.Why
}

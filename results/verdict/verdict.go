// Package verdict is what kregress's judgements come to, and the exit
// code each one means. Each question has its own type, so the answer to
// one cannot stand for another's: a metric's Change, a diff's or run's
// Comparison, a nightly's Night, a whole Bisect and one bisect Step.
// Exit is the one place an answer becomes a process exit code (the table
// in Help, which docs/verdict.md's "Exit codes" documents and the README
// sums up); a Change ends no process, so it has no Exit.
//
// Each mode says in which order its verdicts win when several apply (a
// comparison: regression before unmeasured before unjudged; a night:
// Worse).
package verdict

import (
	"fmt"
	"strings"
)

// Change is what one metric, failure rate, kernel report or selftest of
// a comparison did. Its value is the word stored in JSON (a diff's
// metrics and failure rates), so the words never change; how a report
// prints it is the renderer's.
type Change string

// A change in one metric, failure rate, kernel report or selftest.
const (
	Regression  Change = "regression"
	Improvement Change = "improvement"
	// NoChange: no significant change at the configured false-discovery
	// rate (or within the metric's noise floor).
	NoChange Change = "~"
	// Info: an informational metric, never judged.
	Info Change = "info"
	// Unmeasured: a candidate with no cell that says anything about its
	// kernel (every cell infra_error or incomplete). Never "no change":
	// nothing was seen. It fails a CI gate as an infrastructure failure.
	Unmeasured Change = "unmeasured"
	// Unjudged: a metric with too few boots for its family to reach
	// alpha (a table row prints it TooFew).
	Unjudged Change = "unjudged"
)

func (c Change) String() string { return string(c) }

// TooFew is how a table row prints Unjudged: a metric with too few boots
// for its family to reach alpha. The stored word (JSON, CSV) stays
// "unjudged"; a reader of a table never sees it, so a row is not mistaken
// for the whole comparison's UNJUDGED, which also covers metrics that
// were judged.
const TooFew = "too-few"

// Row is c as a table row of one metric prints it (TooFew for Unjudged).
func (c Change) Row() string {
	if c == Unjudged {
		return TooFew
	}
	return string(c)
}

// Comparison is what a diff or a run comes to as a CI gate
// (compare.Judge), in this order: a regression before an unmeasured
// candidate before an unjudged metric.
type Comparison string

// A whole diff or run.
const (
	// ComparisonPass: compared with its baseline, nothing failing.
	ComparisonPass Comparison = "pass"
	// ComparisonRegression: a candidate fails (a metric, its failure
	// rate, a new kernel report, a selftest, the debug pass).
	ComparisonRegression Comparison = "regression"
	// ComparisonUnmeasured: a candidate had no cell that says anything
	// about its kernel: the host's failure, not the kernel's.
	ComparisonUnmeasured Comparison = "unmeasured"
	// ComparisonUnjudged: nothing failing, but a primary metric had too
	// few ok samples to reach alpha, or an unjudged metric leaning worse
	// was seen to change: not a pass.
	ComparisonUnjudged Comparison = "unjudged"
	// BaselineFailed: the baseline itself could not be measured.
	BaselineFailed Comparison = "baseline failed"
)

func (c Comparison) String() string { return string(c) }

// Exit is the exit code a gating command (diff and run with
// --fail-on-regression) ends with when its comparison is c; without the
// flag it does not ask.
func (c Comparison) Exit() Exit {
	switch c {
	case ComparisonRegression:
		return ExitRegression
	case ComparisonUnmeasured:
		return ExitFailure
	case ComparisonUnjudged:
		return ExitUnjudged
	case BaselineFailed:
		return ExitBaselineFailed
	}
	return ExitOK
}

// Night is what one experiment's night, or a whole nightly (its worst:
// Worse), comes to. Its String is the word a program reads; its Word,
// how a night's reports head with it and store it (MarshalText).
type Night string

// A night.
const (
	// NightPass: compared with its baseline, nothing failing.
	NightPass Night = "pass"
	// FirstNight: no comparable good night yet: tonight is the baseline.
	FirstNight Night = "first night"
	// NightUnjudged: nothing failing, but a primary metric had too few
	// ok samples to reach alpha, or an unjudged metric leaning worse was
	// seen to change: not a pass, not a baseline.
	NightUnjudged Night = "unjudged"
	// NightRegression: a variant fails (a metric, its failure rate, a
	// new kernel report, a selftest, the debug pass).
	NightRegression Night = "regression"
	// KernelFailure: the kernel under test did not build, boot, or
	// crashed.
	KernelFailure Night = "kernel failure"
	// InfraFailure: the harness failed (QEMU, the store, the host), or
	// a variant was unmeasured.
	InfraFailure Night = "infrastructure failure"
)

func (n Night) String() string { return string(n) }

// Word is how a night names its verdict: the word its reports head with
// and its JSON stores.
func (n Night) Word() string {
	switch n {
	case NightPass:
		return "pass"
	case FirstNight:
		return "first night (baseline set)"
	}
	// UNJUDGED, REGRESSION, KERNEL FAILURE, INFRASTRUCTURE FAILURE:
	// shouted, as a failing night is.
	return strings.ToUpper(string(n))
}

// MarshalText stores n as its Word.
func (n Night) MarshalText() ([]byte, error) { return []byte(n.Word()), nil }

// UnmarshalText reads a Word back, refusing any other word; an empty
// one is the zero Night (a night that reached no verdict stores none).
func (n *Night) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*n = ""
		return nil
	}
	for c := range nightOrder {
		if c.Word() == string(b) {
			*n = c
			return nil
		}
	}
	return fmt.Errorf("night verdict %q: not one of a night's words", b)
}

// Exit is the exit code a nightly ends with when its night is n.
func (n Night) Exit() Exit {
	switch n {
	case NightRegression:
		return ExitRegression
	case NightUnjudged:
		return ExitUnjudged
	case KernelFailure:
		return ExitKernelFailure
	case InfraFailure:
		return ExitFailure
	}
	return ExitOK
}

// Worse is the more severe of two night verdicts, in the order NightPass
// < FirstNight < NightUnjudged < NightRegression < KernelFailure <
// InfraFailure: a night exits with its worst experiment's code.
func Worse(a, b Night) Night {
	if nightOrder[b] > nightOrder[a] {
		return b
	}
	return a
}

// nightOrder ranks a night's verdicts, least severe first.
var nightOrder = map[Night]int{NightPass: 0, FirstNight: 1, NightUnjudged: 2, NightRegression: 3, KernelFailure: 4, InfraFailure: 5}

// Bisect is how a whole bisect ended, as its culprit report states it.
type Bisect string

// A whole bisect.
const (
	Culprit       Bisect = "culprit"
	NotReproduced Bisect = "does not reproduce"
	Inconclusive  Bisect = "inconclusive" // skips leave a range
	Stopped       Bisect = "stopped"      // interrupted or failed before an answer
)

func (b Bisect) String() string { return string(b) }

// Exit is the exit code `kregress bisect` ends with when it ended as b.
func (b Bisect) Exit() Exit {
	switch b {
	case NotReproduced:
		return ExitNotReproduced
	case Inconclusive:
		return ExitInconclusive
	case Stopped:
		return ExitFailure
	}
	return ExitOK
}

// Step is the call on one commit a bisect looked at. Its value is the
// word a bisect's stored steps hold; the zero Step is no call yet.
type Step string

// One commit a bisect looked at.
const (
	Good      Step = "good"
	Bad       Step = "bad"
	Skip      Step = "skip"      // did not build, crashed, or same image as a skipped one
	Undecided Step = "undecided" // measured to the cap without a call: skipped too
)

func (s Step) String() string { return string(s) }

// Exit is the exit code `kregress bisect step` ends with when its commit
// is s, as git bisect run reads it: 0 good, 1 bad, 125 skip.
func (s Step) Exit() Exit {
	switch s {
	case Bad:
		return ExitStepBad
	case Skip, Undecided:
		return ExitStepSkip
	}
	return ExitOK
}

// Answer is a verdict that ends a command: every question's but a
// metric's Change.
type Answer interface {
	Comparison | Night | Bisect | Step
	Exit() Exit
}

// Exit is a process exit status.
type Exit int

// Exit codes, the same for every command (Help).
const (
	ExitOK             Exit = 0
	ExitFailure        Exit = 1   // an infrastructure or other error: the host, QEMU, a store, a build
	ExitUsage          Exit = 2   // bad flags, arguments or configuration
	ExitRegression     Exit = 3   // a regression, more failures, a new kernel report, a selftest or debug-pass flag
	ExitBaselineFailed Exit = 4   // the baseline kernel could not be measured (build, boot or no ok cell)
	ExitKernelFailure  Exit = 5   // nightly: tonight's kernel did not build, boot, or crashed
	ExitLocked         Exit = 6   // nightly: another nightly holds the lock
	ExitNotReproduced  Exit = 7   // bisect: good and bad do not differ in the metric
	ExitInconclusive   Exit = 8   // bisect: skips leave a range, not a single culprit
	ExitUnjudged       Exit = 9   // a comparison or night that could not be judged (ComparisonUnjudged, NightUnjudged)
	ExitStepBad        Exit = 1   // bisect step (git bisect run): like bad
	ExitStepSkip       Exit = 125 // bisect step: skip this commit
	ExitStepAbort      Exit = 128 // bisect step: >= 128 stops git bisect run: an infrastructure failure
	ExitAborted        Exit = 130 // a second SIGINT/SIGTERM: exit at once (128 + SIGINT, as shells do)
)

// Help is every exit status a kregress command can end with, as the
// root command's help shows it; TestHelpComplete checks it names every
// Exit constant.
const Help = `Exit codes:
  0    no regression (bisect: a culprit named)
  1    infrastructure or other error (the host, QEMU, a store, a build);
       with --fail-on-regression also: a candidate was unmeasured (every
       cell an infrastructure error: nothing seen, nothing passed)
  2    usage or configuration error (bad flag, argument or key)
  3    a regression: performance, failure rate, new kernel report,
       selftest or debug-pass flag (with --fail-on-regression; always for
       nightly)
  4    the baseline itself could not be measured (its kernel failed to
       build or boot, or no cell of it was ok)
  5    nightly: tonight's kernel did not build, boot or crashed
  6    nightly: another nightly holds the lock
  7    bisect: good and bad do not differ (does not reproduce)
  8    bisect: inconclusive (skipped commits leave a range)
  9    UNJUDGED: no regression, but a primary metric had too few ok
       samples to reach alpha, a too-few metric leaning worse was
       seen to change, or a metric's boots could not rule out that it
       got rule_out (1.5x) worse (with --fail-on-regression; always for
       nightly)
  125  bisect step (for git bisect run): skip this commit (a step's
       0 and 1 are good and bad)
  128  bisect step: infrastructure failure (stops git bisect run)
  130  interrupted by a second Ctrl-C (the first keeps what is done,
       marks the run interrupted and exits 1)
When several apply: 3 before 1 before 9 (nightly: its worst, see its help).`

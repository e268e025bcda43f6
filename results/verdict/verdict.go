// Package verdict is what kregress's judgements come to, and the exit
// code each one means. A diff judges each metric and the diff as a whole,
// a nightly judges each experiment's night, a bisect judges each commit
// it looks at and the search as a whole: they all say it with a Verdict,
// and Exit is the one place a verdict becomes a process exit code (the
// table in Help, which docs/verdict.md's "Exit codes" documents and the
// README sums up).
//
// Each mode says in which order its verdicts win when several apply (a
// diff: regression before unmeasured before unjudged; a night: Worse).
package verdict

// Verdict is one judgement's outcome. Its value is the word stored in
// JSON (a diff's changes, a culprit report's outcome, a bisect's steps),
// so the words never change; how a report prints it is the renderer's.
type Verdict string

// A change in one metric, failure rate, kernel report or selftest.
const (
	Regression  Verdict = "regression"
	Improvement Verdict = "improvement"
	// NoChange: no significant change at the configured false-discovery
	// rate (or within the metric's noise floor).
	NoChange Verdict = "~"
	// Info: an informational metric, never judged.
	Info Verdict = "info"
	// Unmeasured: a candidate with no cell that says anything about its
	// kernel (every cell infra_error or incomplete). Never "no change":
	// nothing was seen. It fails a CI gate as an infrastructure failure.
	Unmeasured Verdict = "unmeasured"
)

// TooFew is how a table row prints Unjudged: a metric with too few boots
// for its family to reach alpha. The stored word (JSON, CSV) stays
// "unjudged"; a reader of a table never sees it, so a row is not mistaken
// for the whole comparison's UNJUDGED, which also covers metrics that
// were judged.
const TooFew = "too-few"

// Row is v as a table row of one metric prints it (TooFew for Unjudged).
func (v Verdict) Row() string {
	if v == Unjudged {
		return TooFew
	}
	return string(v)
}

// A whole diff or night.
const (
	// Pass: compared with its baseline, nothing failing.
	Pass Verdict = "pass"
	// FirstNight: no comparable good night yet: tonight is the baseline.
	FirstNight Verdict = "first night"
	// Unjudged: nothing failing, but a primary metric had too few ok
	// samples to reach alpha, or an unjudged metric leaning worse was
	// seen to change: not a pass, not a baseline.
	Unjudged Verdict = "unjudged"
	// KernelFailure: the kernel under test did not build, boot, or
	// crashed (nightly).
	KernelFailure Verdict = "kernel failure"
	// InfraFailure: the harness failed (QEMU, the store, the host).
	InfraFailure Verdict = "infrastructure failure"
	// BaselineFailed: the baseline itself could not be measured.
	BaselineFailed Verdict = "baseline failed"
)

// A whole bisect, as its culprit report states it.
const (
	Culprit       Verdict = "culprit"
	NotReproduced Verdict = "does not reproduce"
	Inconclusive  Verdict = "inconclusive" // skips leave a range
	Stopped       Verdict = "stopped"      // interrupted or failed before an answer
)

// One commit a bisect looked at.
const (
	Good      Verdict = "good"
	Bad       Verdict = "bad"
	Skip      Verdict = "skip"      // did not build, crashed, or same image as a skipped one
	Undecided Verdict = "undecided" // measured to the cap without a call: skipped too
)

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
	ExitUnjudged       Exit = 9   // a change that could not be judged (verdict Unjudged)
	ExitStepBad        Exit = 1   // bisect step (git bisect run): like bad
	ExitStepSkip       Exit = 125 // bisect step: skip this commit
	ExitStepAbort      Exit = 128 // bisect step: >= 128 stops git bisect run: an infrastructure failure
	ExitAborted        Exit = 130 // a second SIGINT/SIGTERM: exit at once (128 + SIGINT, as shells do)
)

// Exit is the exit code a command ends with when its judgement is v.
// Changes within a diff (Improvement, NoChange, Info) and a pass exit 0;
// a command that gates only on request (diff and run without
// --fail-on-regression) does not ask.
func (v Verdict) Exit() Exit {
	switch v {
	case Regression:
		return ExitRegression
	case Unmeasured, InfraFailure, Stopped:
		return ExitFailure
	case Unjudged:
		return ExitUnjudged
	case KernelFailure:
		return ExitKernelFailure
	case BaselineFailed:
		return ExitBaselineFailed
	case NotReproduced:
		return ExitNotReproduced
	case Inconclusive:
		return ExitInconclusive
	case Bad:
		return ExitStepBad
	case Skip, Undecided:
		return ExitStepSkip
	}
	return ExitOK
}

// nightOrder ranks a night's verdicts, least severe first.
var nightOrder = map[Verdict]int{Pass: 0, FirstNight: 1, Unjudged: 2, Regression: 3, KernelFailure: 4, InfraFailure: 5}

// Worse is the more severe of two night verdicts, in the order Pass <
// FirstNight < Unjudged < Regression < KernelFailure < InfraFailure: a
// night exits with its worst experiment's code.
func Worse(a, b Verdict) Verdict {
	if nightOrder[b] > nightOrder[a] {
		return b
	}
	return a
}

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

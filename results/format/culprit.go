package format

// A bisect's culprit report: Markdown (for a CI summary or an issue),
// JSON, JUnit XML (its figures as properties) and a plain-text mail body
// in the 0-day bot's manner.

import (
	"fmt"
	"io"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/kregress/kregress/internal/stepsummary"
	"github.com/kregress/kregress/results/bisectreport"
	"github.com/kregress/kregress/results/verdict"
)

// CulpritFormat is one way to render a culprit report.
type CulpritFormat string

// The culprit report's formats.
const (
	CulpritMarkdown CulpritFormat = "markdown"
	CulpritJSON     CulpritFormat = "json"
	CulpritJUnit    CulpritFormat = "junit"
	CulpritMail     CulpritFormat = "mail"
)

// CulpritFormats are the culprit report's formats, in the order -o
// lists them.
var CulpritFormats = []CulpritFormat{CulpritMarkdown, CulpritJSON, CulpritJUnit, CulpritMail}

// culpritWriters render the culprit report, one a format.
var culpritWriters = writers[CulpritFormat, *bisectreport.Report]{
	CulpritMarkdown: WriteCulpritMarkdown,
	CulpritJSON:     WriteCulpritJSON,
	CulpritJUnit:    WriteCulpritJUnit,
	CulpritMail:     WriteCulpritMail,
}

// WriteCulprit renders the report in format f.
func WriteCulprit(w io.Writer, f CulpritFormat, r *bisectreport.Report) error {
	return culpritWriters.write(w, f, "culprit report", r)
}

// culpritHeadline is the report's one-line verdict.
func culpritHeadline(r *bisectreport.Report) string {
	what := r.Metric
	if r.Variant != "" {
		what += " (" + r.Variant + ")"
	}
	switch r.Outcome {
	case verdict.Culprit:
		c := r.Culprit
		return fmt.Sprintf("%s: first bad %s %.12s %q, %s", what, culpritUnit(r), c.ID, c.Subject, culpritConfirmation(r))
	case verdict.NotReproduced:
		return what + ": does not reproduce between " + r.Good + " and " + r.Bad
	case verdict.Inconclusive:
		return fmt.Sprintf("%s: inconclusive, %d candidates left by skips", what, len(r.Candidates))
	}
	return what + ": stopped: " + r.Error
}

// culpritUnit is what the bisect searched: a series' patches, or commits.
func culpritUnit(r *bisectreport.Report) string {
	if r.Series {
		return "patch"
	}
	return "commit"
}

// culpritUnits is culpritUnit counted.
func culpritUnits(r *bisectreport.Report) string {
	u := culpritUnit(r)
	switch {
	case r.Commits == 1:
	case r.Series:
		u = "patches"
	default:
		u += "s"
	}
	return fmt.Sprintf("%d %s", r.Commits, u)
}

func culpritConfirmation(r *bisectreport.Report) string {
	if r.Confirmation == nil {
		return "not confirmed by revert (not checked)"
	}
	switch r.Confirmation.Outcome {
	case bisectreport.Confirmed:
		return "confirmed by revert"
	case bisectreport.Refuted:
		return "NOT confirmed: the revert is still bad"
	case bisectreport.RevertBetween:
		return "partly confirmed: the revert is between good and bad, another change is in the range"
	}
	return "unconfirmed: " + string(r.Confirmation.Outcome)
}

// culpritChange is the metric's change, or the crash rate.
func culpritChange(r *bisectreport.Report) string {
	if r.Crash {
		return "kernel failures: the bad endpoint " + r.CrashRate
	}
	if r.Change == nil {
		return ""
	}
	return r.Change.String() + " (the endpoints' looks; one metric, so q = p; the MDE is a rank test's at these n and spread)"
}

// kernelText is the measured kernels' configuration in one line.
func kernelText(k bisectreport.KernelConfig) string {
	if k.ConfigSHA256 == "" {
		return "(no run recorded its configuration)"
	}
	s := fmt.Sprintf("base config %s, .config sha256 %.16s", k.BaseConfig, k.ConfigSHA256)
	if k.Preemption != "" {
		s += ", " + k.Preemption
	}
	return s + fmt.Sprintf(", %s, %s with %d vCPUs", k.Compiler, k.Accel, k.VCPUs)
}

// WriteCulpritMarkdown writes the report for a CI summary or an issue.
func WriteCulpritMarkdown(w io.Writer, r *bisectreport.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kregress bisect %d: %s\n\n", r.BisectID, culpritHeadline(r))
	fmt.Fprintf(&b, "- **experiment** %s, **searched** `%s..%s` (%s)\n", r.Experiment, r.Good, r.Bad, culpritUnits(r))
	if r.Night != nil {
		fmt.Fprintf(&b, "- **nightly** runs %v against baseline run %d: %s\n", r.Night.NightRunIDs, r.Night.BaselineRunID, r.Night.Regression)
	}
	if t := culpritChange(r); t != "" {
		fmt.Fprintf(&b, "- **change** %s\n", t)
	}
	if c := r.Culprit; c != nil {
		fmt.Fprintf(&b, "- **culprit** `%s` %s\n  - author: %s\n", c.ID, c.Subject, c.Author)
		if c.Date != "" {
			fmt.Fprintf(&b, "  - date: %s\n", c.Date)
		}
		if c.Describe != "" {
			fmt.Fprintf(&b, "  - git describe: `%s`\n", c.Describe)
		}
		fmt.Fprintf(&b, "  - confidence: %.1f%%\n", r.Confidence*100)
		fmt.Fprintf(&b, "- **confirmation** %s\n", r.Confirmation)
	}
	for _, c := range r.Candidates {
		fmt.Fprintf(&b, "- candidate `%s`\n", c)
	}
	fmt.Fprintf(&b, "- **cost** %d boots, %d measured steps\n", r.Boots, r.Steps)
	fmt.Fprintf(&b, "- **kernel** %s\n", kernelText(r.Kernel))
	b.WriteString("- **reproduce**\n\n```sh\n" + strings.Join(r.Reproduce, "\n") + "\n```\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCulpritJSON writes the report as JSON.
func WriteCulpritJSON(w io.Writer, r *bisectreport.Report) error {
	return IndentedJSON(w, r)
}

// WriteCulpritJUnit writes one test suite: its properties carry every
// figure, its one test case fails when a culprit was named (a regression
// was found and pinned), is skipped when it does not reproduce, and
// errors when the bisect stopped or was inconclusive.
func WriteCulpritJUnit(w io.Writer, r *bisectreport.Report) error {
	s := junit.Testsuite{Name: "kregress bisect"}
	prop := func(k, v string) {
		if v != "" {
			s.AddProperty(k, v)
		}
	}
	prop("bisect_id", fmt.Sprint(r.BisectID))
	prop("outcome", string(r.Outcome))
	prop("experiment", r.Experiment)
	prop("variant", r.Variant)
	prop("metric", r.Metric)
	prop("range", r.Good+".."+r.Bad)
	prop("commits", fmt.Sprint(r.Commits))
	if c := r.Change; c != nil {
		prop("change_pct", fmt.Sprintf("%.2f", c.DeltaPct))
		prop("p", fmt.Sprintf("%.4g", c.P))
		prop("q", fmt.Sprintf("%.4g", c.Q))
		prop("n", fmt.Sprintf("%d+%d", c.N1, c.N2))
		prop("mde_pct", fmt.Sprintf("%.1f", c.MDEPct))
	}
	prop("crash_rate", r.CrashRate)
	if c := r.Culprit; c != nil {
		prop("culprit", c.ID)
		prop("culprit_subject", c.Subject)
		prop("culprit_author", c.Author)
		prop("culprit_date", c.Date)
		prop("culprit_describe", c.Describe)
		prop("confidence", fmt.Sprintf("%.3f", r.Confidence))
		prop("confirmation", r.Confirmation.String())
	}
	prop("boots", fmt.Sprint(r.Boots))
	prop("config_sha256", r.Kernel.ConfigSHA256)
	prop("base_config", r.Kernel.BaseConfig)
	prop("reproduce", strings.Join(r.Reproduce, "; "))
	tc := junit.Testcase{Name: r.Metric, Classname: r.Experiment}
	res := &junit.Result{Message: culpritHeadline(r)}
	switch r.Outcome {
	case verdict.Culprit:
		res.Type = "culprit"
		tc.Failure = res
	case verdict.NotReproduced:
		tc.Skipped = res
	default:
		tc.Error = res
	}
	s.AddTestcase(tc)
	var all junit.Testsuites
	all.AddSuite(s)
	return all.WriteXML(w)
}

// WriteCulpritMail writes a plain-text mail body in the 0-day bot's
// manner: a subject line, the culprit as git log shows it, what changed,
// the confirmation, and how to reproduce. kregress never sends it.
func WriteCulpritMail(w io.Writer, r *bisectreport.Report) error {
	var b strings.Builder
	subj := fmt.Sprintf("[kregress] %s", culpritHeadline(r))
	if r.Outcome == verdict.Culprit && r.Change != nil {
		subj = fmt.Sprintf("[kregress] %s %+.1f%% regression: %.12s %q", r.Metric, r.Change.DeltaPct, r.Culprit.ID, r.Culprit.Subject)
	}
	fmt.Fprintf(&b, "Subject: %s\n\nHello,\n\n", subj)
	switch r.Outcome {
	case verdict.Culprit:
		writeMailCulprit(&b, r)
	default:
		fmt.Fprintf(&b, "kregress bisected %s of experiment %s: %s.\n", r.Metric, r.Experiment, culpritHeadline(r))
	}
	fmt.Fprintf(&b, "\nsearched: %s..%s (%s)\n", r.Good, r.Bad, culpritUnits(r))
	if r.Night != nil {
		fmt.Fprintf(&b, "nightly: runs %v against baseline run %d: %s\n", r.Night.NightRunIDs, r.Night.BaselineRunID, r.Night.Regression)
	}
	if t := culpritChange(r); t != "" {
		fmt.Fprintf(&b, "change: %s\n", t)
	}
	fmt.Fprintf(&b, "cost: %d boots, %d measured steps\nkernel: %s\n", r.Boots, r.Steps, kernelText(r.Kernel))
	fmt.Fprintf(&b, "\nTo reproduce:\n\n")
	for _, c := range r.Reproduce {
		fmt.Fprintf(&b, "    %s\n", c)
	}
	b.WriteString("\n-- \nkregress (this mail was written, not sent, by kregress bisect --report-mail)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMailCulprit writes the mail's culprit as git log shows it, with
// the confidence and the confirmation.
func writeMailCulprit(b *strings.Builder, r *bisectreport.Report) {
	c := r.Culprit
	fmt.Fprintf(b, "kregress bisected a change of %s (experiment %s", r.Metric, r.Experiment)
	if r.Variant != "" {
		fmt.Fprintf(b, ", variant %s", r.Variant)
	}
	fmt.Fprintf(b, ") to this %s:\n\n%s %s\n", culpritUnit(r), culpritUnit(r), c.ID)
	fmt.Fprintf(b, "Author: %s\n", c.Author)
	if c.Date != "" {
		fmt.Fprintf(b, "Date:   %s\n", c.Date)
	}
	fmt.Fprintf(b, "\n    %s\n\n", c.Subject)
	if c.Describe != "" {
		fmt.Fprintf(b, "git describe: %s\n", c.Describe)
	}
	fmt.Fprintf(b, "confidence: %.1f%%\nconfirmation: %s\n", r.Confidence*100, r.Confirmation)
}

// AppendCulpritStepSummary appends the report's Markdown to
// $GITHUB_STEP_SUMMARY when GitHub Actions set it.
func AppendCulpritStepSummary(r *bisectreport.Report) error {
	return stepsummary.Append(func(w io.Writer) error { return WriteCulpritMarkdown(w, r) })
}

package format

// The nightly's reports: the table printed as each experiment finishes,
// JUnit XML, the Markdown summary, JSON and the offline trend page.

import (
	"fmt"
	"io"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/kregress/kregress/internal/stepsummary"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/nightreport"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// NightFormat is one way to render a night.
type NightFormat string

// The night's formats.
const (
	NightTable    NightFormat = "table"
	NightJUnit    NightFormat = "junit"
	NightMarkdown NightFormat = "markdown"
	NightJSON     NightFormat = "json"
	NightHTML     NightFormat = "html"
)

// NightFiles are the night's formats besides its table (those -o
// FMT=FILE writes).
var NightFiles = []NightFormat{NightJUnit, NightMarkdown, NightJSON, NightHTML}

// NightStdout are the formats nightly prints the night in (-f): the
// table, its default, or any of the files' formats.
var NightStdout = append([]NightFormat{NightTable}, NightFiles...)

// nightWriters render the night, one a format.
var nightWriters = writers[NightFormat, []*nightreport.Result]{
	NightTable:    writeNightTable,
	NightJUnit:    WriteNightJUnit,
	NightMarkdown: WriteNightMarkdown,
	NightJSON:     WriteNightJSON,
	NightHTML:     WriteNightHTML,
}

// WriteNight renders the night in format f.
func WriteNight(w io.Writer, f NightFormat, night []*nightreport.Result) error {
	return nightWriters.write(w, f, "night", night)
}

// writeNightTable writes every experiment's night as the table shows it.
func writeNightTable(w io.Writer, night []*nightreport.Result) error {
	for _, r := range night {
		WriteNightExperiment(w, r)
	}
	return nil
}

// WriteNightExperiment writes one experiment's night as the table shows
// it (printed as each experiment finishes): its verdict and runs, what
// failed with its bisect hand-off, the shifts and the notes.
func WriteNightExperiment(w io.Writer, r *nightreport.Result) {
	fmt.Fprintf(w, "\n%s: %s", r.Experiment, r.Outcome.Word())
	if r.Commit != "" {
		fmt.Fprintf(w, "  (kernel %.12s %s)", r.Commit, r.Describe)
	}
	fmt.Fprintf(w, "\n  tonight: runs %v", r.RunIDs)
	if r.BaselineID != 0 {
		fmt.Fprintf(w, "; baseline: run %d, %s", r.BaselineID, r.Baseline)
	}
	fmt.Fprintln(w)
	for _, c := range r.Cases {
		// A pass is printed only with its power line (a primary metric
		// found unchanged: what the night could have seen).
		if c.Status != nightreport.CasePass || strings.Contains(c.Message, "could see") {
			fmt.Fprintf(w, "  %-8s %s %s: %s\n", strings.ToUpper(string(c.Status)), c.Variant, c.Name, c.Message)
			if c.Bisect != nil {
				for _, line := range strings.Split(handoffText(c.Bisect), "\n") {
					fmt.Fprintf(w, "           %s\n", line)
				}
			}
		}
	}
	for _, s := range r.Shifts {
		fmt.Fprintf(w, "  shift    %s %s at run %d (%s): %.4g -> %.4g (%+.1f%%, p=%.3f)\n", s.Variant, s.Metric, s.RunID, s.Night, s.Before, s.After, s.Pct, s.P)
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "  note     %s\n", note)
	}
}

// WriteNightJUnit writes one testsuite per experiment, one testcase per
// variant and judged thing: failure for a regression, error for a build,
// boot, crash or infrastructure problem, skipped for too little data.
// Properties carry the commit, config hash and run ids.
func WriteNightJUnit(w io.Writer, night []*nightreport.Result) error {
	var suites junit.Testsuites
	suites.Name = "kregress nightly"
	for i, r := range night {
		suites.AddSuite(nightSuite(i, r))
	}
	return suites.WriteXML(w)
}

// nightSuite is experiment r's testsuite, the i-th of the night.
func nightSuite(i int, r *nightreport.Result) junit.Testsuite {
	s := junit.Testsuite{Name: r.Experiment, ID: i, Time: fmt.Sprintf("%.1f", r.Finished.Sub(r.Started).Seconds())}
	s.SetTimestamp(r.Started)
	s.AddProperty("verdict", r.Outcome.Word())
	s.AddProperty("commit", r.Commit)
	s.AddProperty("describe", r.Describe)
	s.AddProperty("config_sha256", r.ConfigSHA)
	s.AddProperty("run_ids", fmt.Sprint(r.RunIDs))
	if r.BaselineID != 0 {
		s.AddProperty("baseline_run_id", fmt.Sprint(r.BaselineID))
		s.AddProperty("baseline", r.Baseline)
	}
	for i, h := range nightreport.Handoffs([]*nightreport.Result{r}) {
		addHandoffProperties(&s, fmt.Sprintf("bisect.%d.", i+1), h)
	}
	if r.Outcome == verdict.FirstNight {
		s.AddTestcase(junit.Testcase{Name: "baseline", Classname: r.Experiment,
			Skipped: &junit.Result{Message: strings.Join(r.Notes, "; ")}})
	}
	if r.Outcome == verdict.NightUnjudged {
		// Its unjudged metrics are skipped cases; the night itself
		// is not a pass, and a CI view of the suite must show it.
		s.AddTestcase(junit.Testcase{Name: "verdict", Classname: r.Experiment,
			Failure: &junit.Result{Type: "unjudged", Message: "a primary metric had too few ok boots to reach alpha: the night is not good and is not a baseline"}})
	}
	for _, c := range r.Cases {
		s.AddTestcase(nightCase(r.Experiment, c))
	}
	return s
}

// nightCase is one judged case of experiment as a JUnit testcase.
func nightCase(experiment string, c nightreport.Case) junit.Testcase {
	tc := junit.Testcase{Name: c.Name, Classname: experiment + "." + c.Variant}
	if c.Variant == "" {
		tc.Classname = experiment
	}
	res := &junit.Result{Message: c.Message, Data: c.Detail}
	switch c.Status {
	case nightreport.CaseFailure:
		res.Type = "regression"
		if c.Bisect != nil {
			res.Data = strings.TrimLeft(res.Data+"\n"+handoffText(c.Bisect), "\n")
		}
		tc.Failure = res
	case nightreport.CaseError:
		tc.Error = res
	case nightreport.CaseSkipped:
		tc.Skipped = res
	default:
		if c.Message != "" {
			tc.SystemOut = &junit.Output{Data: c.Message}
		}
	}
	return tc
}

func addHandoffProperties(s *junit.Testsuite, prefix string, h *nightreport.Handoff) {
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

// WriteNightJSON writes the night as JSON.
func WriteNightJSON(w io.Writer, night []*nightreport.Result) error {
	return IndentedJSON(w, map[string]any{"verdict": nightreport.Worst(night).Word(), "experiments": night})
}

// summaryLimit is GitHub's limit for one step's summary.
const summaryLimit = 1 << 20

// WriteNightMarkdown writes the night's summary: one line per
// experiment, then what failed, the shifts over the nights, and the
// notes.
func WriteNightMarkdown(w io.Writer, night []*nightreport.Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kregress nightly: %s\n\n| experiment | verdict | kernel | tonight | baseline |\n|---|---|---|---|---|\n", nightreport.Worst(night))
	for _, r := range night {
		kernel := mdText(r.Describe)
		if r.Commit != "" {
			kernel = fmt.Sprintf("%s %s", mdCode(fmt.Sprintf("%.12s", r.Commit)), mdText(r.Describe))
		}
		base := "-"
		if r.BaselineID != 0 {
			base = fmt.Sprintf("run %d (%s)", r.BaselineID, r.Baseline)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | runs %v | %s |\n", mdText(r.Experiment), r.Outcome.Word(), kernel, r.RunIDs, mdText(base))
	}
	for _, r := range night {
		writeNightFindings(&b, r)
	}
	out := b.String()
	if len(out) > summaryLimit-200 {
		out = out[:summaryLimit-200] + "\n\n(cut at GitHub's 1 MiB summary limit; the JSON and JUnit outputs are complete)\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// writeNightFindings writes experiment r's section of the summary: what
// failed, its shifts and notes (nothing when it has none).
func writeNightFindings(b *strings.Builder, r *nightreport.Result) {
	var bad []nightreport.Case
	for _, c := range r.Cases {
		// Skipped cases too: an unjudged metric or an unconfirmed
		// selftest failure is why a night is not good, and the
		// summary must name it.
		if c.Status == nightreport.CaseFailure || c.Status == nightreport.CaseError || c.Status == nightreport.CaseSkipped {
			bad = append(bad, c)
		}
	}
	if len(bad) == 0 && len(r.Shifts) == 0 && len(r.Notes) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s\n\n", mdText(r.Experiment))
	for _, c := range bad {
		fmt.Fprintf(b, "- **%s** %s %s: %s\n", c.Status, mdText(c.Variant), mdText(c.Name), mdText(c.Message))
		if c.Bisect != nil {
			fmt.Fprintf(b, "  - %s\n", handoffMarkdown(c.Bisect))
		}
		if c.Detail != "" && c.Detail != c.Message {
			b.WriteString("\n")
			b.WriteString(mdCodeBlock(tailLines(mdLines(c.Detail), 30), "  "))
		}
	}
	for _, s := range r.Shifts {
		fmt.Fprintf(b, "- shift in %s %s at run %d (%s): %.4g -> %.4g (%s, p=%.3f)\n", mdText(s.Variant), mdText(s.Metric), s.RunID, s.Night, s.Before, s.After, num.DeltaQuiet(s.Pct), s.P)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "- %s\n", n)
	}
}

// NightWriter renders night in the format named f (a NightFormat), for
// a writer of several outputs that names each one's format.
func NightWriter(night []*nightreport.Result) func(f string, w io.Writer) error {
	return func(f string, w io.Writer) error { return WriteNight(w, NightFormat(f), night) }
}

// WriteMarks writes `baseline list`: one line per mark, tab-separated
// (run, kind, local time, who, why).
func WriteMarks(w io.Writer, marks []nightreport.MarkRow) error {
	for _, m := range marks {
		if _, err := fmt.Fprintf(w, "run %d\t%s\t%s\t%s\t%s\n", m.RunID, m.Kind, m.At.Local().Format("2006-01-02 15:04"), m.Who, m.Reason); err != nil {
			return err
		}
	}
	return nil
}

// AppendNightStepSummary appends the night's Markdown summary to
// $GITHUB_STEP_SUMMARY when GitHub Actions set it.
func AppendNightStepSummary(night []*nightreport.Result) error {
	return stepsummary.Append(func(w io.Writer) error { return WriteNightMarkdown(w, night) })
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteNightHTML writes the offline trend page of the night's
// experiments.
func WriteNightHTML(w io.Writer, night []*nightreport.Result) error {
	var trends []trendreport.Trend
	for _, r := range night {
		trends = append(trends, r.Trends...)
	}
	return trendreport.Render(w, "kregress nightly: "+nightreport.Worst(night).Word(), trends)
}

// handoffText is the hand-off as plain lines: the range, the command,
// and what nightly --bisect found.
func handoffText(h *nightreport.Handoff) string {
	if h.Command == "" {
		return "bisect: no commit range: " + h.NoRange
	}
	s := "commits since the last good night: " + h.Range() + "\nfind the culprit: " + h.Command
	if h.Note != "" {
		s += "\n(" + h.Note + ")"
	}
	if h.BisectID != 0 {
		s += "\n" + h.Found()
	}
	return s
}

// handoffMarkdown is the hand-off as one Markdown line.
func handoffMarkdown(h *nightreport.Handoff) string {
	if h.Command == "" {
		return "no commit range to bisect: " + h.NoRange
	}
	s := fmt.Sprintf("since the last good night: %s; find the culprit: %s", mdCode(h.Range()), mdCode(h.Command))
	if h.Note != "" {
		s += " (" + h.Note + ")"
	}
	if h.BisectID != 0 {
		s += "; " + h.Found()
	}
	return s
}

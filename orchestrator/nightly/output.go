package nightly

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/kregress/kregress/internal/stepsummary"
	"github.com/kregress/kregress/results/trendreport"
	"github.com/kregress/kregress/results/verdict"
)

// WriteJUnit writes one testsuite per experiment, one testcase per
// variant and judged thing: failure for a regression, error for a build,
// boot, crash or infrastructure problem, skipped for too little data.
// Properties carry the commit, config hash and run ids.
func WriteJUnit(w io.Writer, night []*Result) error {
	var suites junit.Testsuites
	suites.Name = "kregress nightly"
	for i, r := range night {
		s := junit.Testsuite{Name: r.Experiment, ID: i, Time: fmt.Sprintf("%.1f", r.Finished.Sub(r.Started).Seconds())}
		s.SetTimestamp(r.Started)
		s.AddProperty("verdict", r.Verdict)
		s.AddProperty("commit", r.Commit)
		s.AddProperty("describe", r.Describe)
		s.AddProperty("config_sha256", r.ConfigSHA)
		s.AddProperty("run_ids", fmt.Sprint(r.RunIDs))
		if r.BaselineID != 0 {
			s.AddProperty("baseline_run_id", fmt.Sprint(r.BaselineID))
			s.AddProperty("baseline", r.Baseline)
		}
		for i, h := range Handoffs([]*Result{r}) {
			addHandoffProperties(&s, fmt.Sprintf("bisect.%d.", i+1), h)
		}
		if r.Outcome == verdict.FirstNight {
			s.AddTestcase(junit.Testcase{Name: "baseline", Classname: r.Experiment,
				Skipped: &junit.Result{Message: strings.Join(r.Notes, "; ")}})
		}
		if r.Outcome == verdict.Unjudged {
			// Its unjudged metrics are skipped cases; the night itself
			// is not a pass, and a CI view of the suite must show it.
			s.AddTestcase(junit.Testcase{Name: "verdict", Classname: r.Experiment,
				Failure: &junit.Result{Type: "unjudged", Message: "a primary metric had too few ok boots to reach alpha: the night is not good and is not a baseline"}})
		}
		for _, c := range r.Cases {
			tc := junit.Testcase{Name: c.Name, Classname: r.Experiment + "." + c.Variant}
			if c.Variant == "" {
				tc.Classname = r.Experiment
			}
			res := &junit.Result{Message: c.Message, Data: c.Detail}
			switch c.Status {
			case CaseFailure:
				res.Type = "regression"
				if c.Bisect != nil {
					res.Data = strings.TrimLeft(res.Data+"\n"+c.Bisect.Text(), "\n")
				}
				tc.Failure = res
			case CaseError:
				tc.Error = res
			case CaseSkipped:
				tc.Skipped = res
			default:
				if c.Message != "" {
					tc.SystemOut = &junit.Output{Data: c.Message}
				}
			}
			s.AddTestcase(tc)
		}
		suites.AddSuite(s)
	}
	return suites.WriteXML(w)
}

// WriteJSON writes the night as JSON.
func WriteJSON(w io.Writer, night []*Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"verdict": word(Worst(night)), "experiments": night})
}

// summaryLimit is GitHub's limit for one step's summary.
const summaryLimit = 1 << 20

// WriteMarkdown writes the night's summary: one line per experiment, then
// what failed, the shifts over the nights, and the notes.
func WriteMarkdown(w io.Writer, night []*Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kregress nightly: %s\n\n| experiment | verdict | kernel | tonight | baseline |\n|---|---|---|---|---|\n", Worst(night))
	for _, r := range night {
		kernel := r.Describe
		if r.Commit != "" {
			kernel = fmt.Sprintf("`%.12s` %s", r.Commit, r.Describe)
		}
		base := "-"
		if r.BaselineID != 0 {
			base = fmt.Sprintf("run %d (%s)", r.BaselineID, r.Baseline)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | runs %v | %s |\n", r.Experiment, r.Verdict, kernel, r.RunIDs, base)
	}
	for _, r := range night {
		var bad []Case
		for _, c := range r.Cases {
			// Skipped cases too: an unjudged metric or an unconfirmed
			// selftest failure is why a night is not good, and the
			// summary must name it.
			if c.Status == CaseFailure || c.Status == CaseError || c.Status == CaseSkipped {
				bad = append(bad, c)
			}
		}
		if len(bad) == 0 && len(r.Shifts) == 0 && len(r.Notes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", r.Experiment)
		for _, c := range bad {
			fmt.Fprintf(&b, "- **%s** %s %s: %s\n", c.Status, c.Variant, c.Name, c.Message)
			if c.Bisect != nil {
				fmt.Fprintf(&b, "  - %s\n", c.Bisect.Markdown())
			}
			if c.Detail != "" && c.Detail != c.Message {
				fmt.Fprintf(&b, "\n  ```\n%s\n  ```\n", tailLines(c.Detail, 30))
			}
		}
		for _, s := range r.Shifts {
			fmt.Fprintf(&b, "- shift in %s %s at run %d (%s): %.4g -> %.4g (%s, p=%.3f)\n", s.Variant, s.Metric, s.RunID, s.Night, s.Before, s.After, fmtPct(s.Pct), s.P)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	out := b.String()
	if len(out) > summaryLimit-200 {
		out = out[:summaryLimit-200] + "\n\n(cut at GitHub's 1 MiB summary limit; the JSON and JUnit outputs are complete)\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// AppendStepSummary appends the Markdown summary to $GITHUB_STEP_SUMMARY
// when GitHub Actions set it.
func AppendStepSummary(night []*Result) error {
	return stepsummary.Append(func(w io.Writer) error { return WriteMarkdown(w, night) })
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteHTML writes the offline trend page of the night's experiments.
func WriteHTML(w io.Writer, night []*Result) error {
	var trends []trendreport.Trend
	for _, r := range night {
		trends = append(trends, r.Trends...)
	}
	return trendreport.Render(w, "kregress nightly: "+word(Worst(night)), trends)
}

// word is how a night's reports name its verdict.
func word(v verdict.Verdict) string {
	switch v {
	case verdict.Pass:
		return "pass"
	case verdict.FirstNight:
		return "first night (baseline set)"
	}
	// UNJUDGED, REGRESSION, KERNEL FAILURE, INFRASTRUCTURE FAILURE:
	// shouted, as a failing night is.
	return strings.ToUpper(string(v))
}

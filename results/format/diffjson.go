package format

import (
	"io"
	"math"

	"github.com/kregress/kregress/results/compare"
)

// jsonDiff is the stable JSON shape of a diff.
type jsonDiff struct {
	Baseline    string                  `json:"baseline"`
	Alpha       float64                 `json:"alpha"`
	Confidence  float64                 `json:"confidence"`
	Sets        []*compare.Variant      `json:"sets"`
	Comparisons map[string][]jsonMetric `json:"comparisons"`
	Regressions []string                `json:"regressions"`
	// Failures: candidate -> its failure rate against the baseline's.
	Failures map[string]compare.FailureRate `json:"failures"`
	// SelftestChanges: candidate -> tests whose outcome differs.
	SelftestChanges map[string][]compare.SelftestChange `json:"selftest_changes"`
	// KernelReports: candidate -> its kernel reports vs the baseline's.
	KernelReports map[string][]compare.ReportChange `json:"kernel_reports"`
	// Failing: everything that fails a CI gate (what exit code 3 means);
	// Verdict is "fail" when it is not empty, else "unmeasured" when a
	// candidate had no cell that said anything about its kernel
	// (Unmeasured), else "unjudged" when a deciding metric could not be
	// judged (Unjudged), else "pass".
	Failing    []string `json:"failing"`
	Unmeasured []string `json:"unmeasured"`
	Unjudged   []string `json:"unjudged"`
	// NotJudged: unjudged metrics that neither decide the verdict nor
	// were seen to regress ("metric +3.1%"); a pass with any is not "no
	// significant change" (Headline says so).
	NotJudged []string `json:"not_judged"`
	Verdict   string   `json:"verdict"`
	// Headline: the verdict in the words the table and the pages print.
	Headline string `json:"headline"`
	// Warnings change what the verdict is about (a set judged its
	// workload's fallback primary metric); absent when there are none.
	Warnings []string `json:"warnings,omitempty"`
	// LoadMismatch: candidate -> how its host load differed from the
	// baseline's beyond load_bound, both on the host's clock (its timing
	// regressions are not called); absent when none did.
	LoadMismatch map[string]*compare.LoadMismatch `json:"load_mismatch,omitempty"`
	// LoadNotes: the same in words, as the table prints them.
	LoadNotes []string `json:"load_notes,omitempty"`
}

type jsonMetric struct {
	compare.Metric
	// DeltaPct is null when the change is not a percentage (from 0).
	DeltaPct *float64 `json:"delta_pct"`
	// CouldSeePct: the smallest change this comparison would have found
	// with 80% power, for a deciding metric found unchanged (null
	// otherwise, or when no change could be found).
	CouldSeePct *float64 `json:"could_see_pct"`
	// WorstPct: for a metric not called, the worst change its boots leave
	// possible, in % (null when not computed or unbounded).
	WorstPct *float64 `json:"worst_pct"`
}

// finite is v, or nil (JSON null) for NaN and the infinities, which
// JSON cannot carry: "not measured" and "never" respectively.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orEmpty is s, or an empty list (JSON [], never null).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeJSON renders the diff as JSON (NaN changes become null).
func writeJSON(w io.Writer, d *compare.Diff, warnings []string) error {
	return IndentedJSON(w, newJSONDiff(d, warnings))
}

// newJSONDiff is the diff d with its warnings in its JSON shape.
func newJSONDiff(d *compare.Diff, warnings []string) jsonDiff {
	out := jsonDiff{Baseline: d.Baseline, Alpha: d.Options.Alpha, Confidence: d.Options.Confidence, Sets: d.Variants,
		Comparisons: map[string][]jsonMetric{}, Regressions: orEmpty(d.Regressions()), SelftestChanges: d.SelftestChanges, Failures: d.Failures,
		KernelReports: d.Reports, Failing: d.Failing(), Unmeasured: orEmpty(d.Unmeasured()), Unjudged: orEmpty(d.Unjudged()), Warnings: warnings, Headline: d.Headline()}
	out.NotJudged = orEmpty(d.NotJudged())
	if len(d.LoadMismatch) > 0 {
		out.LoadMismatch, out.LoadNotes = d.LoadMismatch, d.LoadNotes()
	}
	for k, ms := range d.Metrics {
		for _, m := range ms {
			out.Comparisons[k] = append(out.Comparisons[k], jsonMetric{Metric: m, DeltaPct: finite(m.DeltaPct), CouldSeePct: finite(m.CouldSeePct), WorstPct: finite(m.WorstPct)})
		}
	}
	out.Verdict = "fail"
	if out.Failing == nil {
		out.Failing, out.Verdict = []string{}, "pass"
		switch {
		case len(out.Unmeasured) > 0:
			out.Verdict = "unmeasured"
		case len(out.Unjudged) > 0:
			out.Verdict = "unjudged"
		}
	}
	return out
}

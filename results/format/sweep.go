package format

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// SweepHeading heads the part of a sweep's report that shows each metric
// against the vCPU counts.
const SweepHeading = "each metric against vCPUs"

// WriteSweepDiff renders the diff of a run that swept vCPU counts
// (counts[i] is parts[i]'s) as one document in f: each count's
// comparison as WriteDiffParts renders a part, and each candidate's
// metrics against the counts (compare.Curves), each count's figures its
// own comparison's. The table gives each part its notes and an "== title"
// line, then the curves under "== title: each metric against vCPUs";
// Markdown a "## title" section per count and one for the curves; JSON
// one object with "vcpus", the "parts" (each with its "vcpus") and the
// "curves"; CSV one header whose first column, "vcpus", is the count,
// one row per count, candidate and metric (the curves are its rows). The
// lkp view is its parts one after another.
func WriteSweepDiff(w io.Writer, f Format, title string, counts []int, parts []DiffPart) error {
	f, err := diffFormat(f)
	if err != nil {
		return err
	}
	if len(counts) != len(parts) {
		return fmt.Errorf("format: a sweep of %d vCPU counts with %d parts", len(counts), len(parts))
	}
	diffs := make([]*compare.Diff, len(parts))
	for i, p := range parts {
		diffs[i] = p.Diff
	}
	curves := compare.Curves(counts, diffs)
	switch f {
	case JSON:
		type sweepPart struct {
			VCPUs int `json:"vcpus"`
			jsonPart
		}
		doc := struct {
			Title  string          `json:"title"`
			VCPUs  []int           `json:"vcpus"`
			Parts  []sweepPart     `json:"parts"`
			Curves []jsonSweepLine `json:"curves"`
		}{Title: title, VCPUs: counts, Parts: []sweepPart{}, Curves: []jsonSweepLine{}}
		for i, p := range parts {
			doc.Parts = append(doc.Parts, sweepPart{VCPUs: counts[i], jsonPart: jsonPart{Title: p.Title, jsonDiff: newJSONDiff(p.Diff, p.Warnings)}})
		}
		for _, c := range curves {
			doc.Curves = append(doc.Curves, newJSONSweepLine(c))
		}
		return IndentedJSON(w, doc)
	case CSV:
		cw := csv.NewWriter(w)
		cw.Write(append([]string{"vcpus"}, csvHeader...))
		for i, p := range parts {
			for _, row := range csvRows(p.Diff) {
				cw.Write(append([]string{strconv.Itoa(counts[i])}, row...))
			}
		}
		cw.Flush()
		return cw.Error()
	case Markdown:
		for _, p := range parts {
			fmt.Fprintf(w, "## %s\n\n", mdText(p.Title))
			writeMarkdown(w, p.Diff, p.Warnings)
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "## %s: %s\n\n", mdText(title), SweepHeading)
		writeSweepMarkdown(w, curves)
		return nil
	}
	for _, p := range parts {
		fmt.Fprintf(w, "== %s\n", p.Title)
		if f == Table {
			for _, n := range p.Notes {
				fmt.Fprintln(w, n)
			}
			fmt.Fprintln(w)
		}
		if err := WriteDiffWarned(w, p.Diff, f, p.Warnings); err != nil {
			return err
		}
	}
	if f == Table {
		fmt.Fprintf(w, "\n== %s: %s\n", title, SweepHeading)
		writeSweepTable(w, curves)
	}
	return nil
}

// curveTitle names a curve: its metric, unit and direction, and which
// candidate it compares with which baseline.
func curveTitle(c compare.Curve) string {
	return fmt.Sprintf("%s (%s, %s): %s vs %s", c.Metric, c.Unit, DirectionWords(c.Direction), c.Candidate, c.Baseline)
}

// DirectionWords says which way a metric is better, or that it is not
// judged, as a title beside the metric's name says it.
func DirectionWords(d agentproto.Direction) string {
	switch d {
	case agentproto.HigherIsBetter:
		return "higher is better"
	case agentproto.Informational:
		return "information, not judged"
	}
	return "lower is better"
}

// writeSweepTable prints each curve as a block: a row per vCPU count,
// both medians with their intervals, the change, q and the verdict at
// that count.
func writeSweepTable(w io.Writer, curves []compare.Curve) {
	if len(curves) == 0 {
		fmt.Fprintln(w, "\nno metric was compared at any count")
		return
	}
	for _, c := range curves {
		fmt.Fprintf(w, "\n%s\n", curveTitle(c))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "vCPUs\t%s\t%s\tchange\tq\tn\tverdict\t\n", c.Baseline, c.Candidate)
		for _, p := range c.Points {
			m := p.Metric
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d+%d\t%s\t\n", p.VCPUs, Summary(m.Base), Summary(m.Cand), num.Delta(m.DeltaPct), qText(m), m.Base.N, m.Cand.N, m.Verdict.Row())
		}
		tw.Flush()
	}
}

// writeSweepMarkdown renders each curve as a table, a row per count.
func writeSweepMarkdown(w io.Writer, curves []compare.Curve) {
	if len(curves) == 0 {
		fmt.Fprintln(w, "No metric was compared at any count.")
		return
	}
	for i, c := range curves {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "#### %s\n\n", mdText(curveTitle(c)))
		fmt.Fprintf(w, "| vCPUs | %s | %s | change | q | n | verdict |\n|--:|--:|--:|--:|--:|--:|---|\n", mdText(c.Baseline), mdText(c.Candidate))
		for _, p := range c.Points {
			m := p.Metric
			word := m.Verdict.Row()
			if m.Verdict == verdict.Regression {
				word = "**regression**"
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s | %s | %d+%d | %s |\n", p.VCPUs, Summary(m.Base), Summary(m.Cand), num.Delta(m.DeltaPct), qText(m), m.Base.N, m.Cand.N, word)
		}
	}
}

// qText is m's q as the sweep's rows print it: "-" for a metric never
// judged.
func qText(m compare.Metric) string {
	if m.Verdict == verdict.Info || math.IsNaN(m.Q) {
		return "-"
	}
	return fmt.Sprintf("%.3f", m.Q)
}

// jsonSweepLine is a curve in JSON: per count the two sides' summaries,
// the change (null when not a percentage), q and the verdict.
type jsonSweepLine struct {
	Baseline  string               `json:"baseline"`
	Candidate string               `json:"candidate"`
	Metric    string               `json:"metric"`
	Unit      string               `json:"unit"`
	Direction agentproto.Direction `json:"direction"`
	Points    []jsonSweepPoint     `json:"points"`
}

type jsonSweepPoint struct {
	VCPUs    int             `json:"vcpus"`
	Base     compare.Summary `json:"base"`
	Cand     compare.Summary `json:"cand"`
	DeltaPct *float64        `json:"delta_pct"`
	Q        *float64        `json:"q"`
	Verdict  verdict.Change  `json:"verdict"`
}

func newJSONSweepLine(c compare.Curve) jsonSweepLine {
	l := jsonSweepLine{Baseline: c.Baseline, Candidate: c.Candidate, Metric: c.Metric, Unit: c.Unit, Direction: c.Direction, Points: []jsonSweepPoint{}}
	for _, p := range c.Points {
		m := p.Metric
		l.Points = append(l.Points, jsonSweepPoint{VCPUs: p.VCPUs, Base: m.Base, Cand: m.Cand, DeltaPct: finite(m.DeltaPct), Q: finite(m.Q), Verdict: m.Verdict})
	}
	return l
}

// SweepCounts renders a sweep's counts for a line of text: "2, 8, 16".
func SweepCounts(counts []int) string { return joinCounts(counts, ", ") }

// SweepFlag renders a sweep's counts as --vm.cpus-sweep takes them:
// "2,8,16" (the flag's list takes no spaces).
func SweepFlag(counts []int) string { return joinCounts(counts, ",") }

func joinCounts(counts []int, sep string) string {
	s := make([]string, len(counts))
	for i, n := range counts {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, sep)
}

// Package htmlreport renders a diff as one self-contained HTML page: the
// comparison tables, a box plot per metric and set, the read-latency
// histograms, and the irqs-off window durations with their holders. The
// plots are inline SVG drawn here: no script, no CDN, it works offline and
// in a CI artifact viewer.
package htmlreport

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/stats"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/format/num"
	"github.com/kregress/kregress/results/verdict"
)

// Palette: one colour per set, baseline first.
var Palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1"}

// Input is what the page shows.
type Input struct {
	Title  string
	Notes  []string // provenance lines shown under the title
	Diff   *compare.Diff
	Groups []compare.Group // the same sets the diff was made from
	// RunID is the stored run the diff compares the variants of (0: none
	// or several), which `run --resume` can give more boots.
	RunID int64
}

type series struct {
	Label  string
	Color  string
	Values []float64
}

// Render writes the page.
func Render(w io.Writer, in Input) error {
	return pageTmpl.Execute(w, newPage(in))
}

// RenderParts writes one page of the diffs ins, titled title, with a
// section per diff under its own title: one diff's page is Render's.
func RenderParts(w io.Writer, title string, ins []Input) error {
	if len(ins) == 1 {
		return Render(w, ins[0])
	}
	doc := struct {
		Title string
		Parts []pageData
	}{Title: title}
	for _, in := range ins {
		doc.Parts = append(doc.Parts, newPage(in))
	}
	return partsTmpl.Execute(w, doc)
}

// newPage is what the page of in shows.
func newPage(in Input) pageData {
	d := in.Diff
	color := map[string]string{}
	for i, v := range d.Variants {
		color[v.Name] = Palette[i%len(Palette)]
	}
	page := pageData{Title: in.Title, Notes: in.Notes, Baseline: d.Baseline, Alpha: d.Options.Alpha}
	for _, v := range d.Variants {
		page.Sets = append(page.Sets, setRow{Name: v.Name, Color: color[v.Name], Runs: num.Statuses(v.Statuses),
			Worst: fmt.Sprintf("%.0f", v.WorstUS.Median), Holders: format.Holders(v.WorstHolders, 3), WindowHolders: format.Holders(v.WindowHolders, 5),
			Sections: format.Holders(v.WorstSections, 2)})
	}
	for i, v := range d.Variants {
		if v.Selftests.Runs == 0 && len(d.SelftestChanges[v.Name]) == 0 {
			continue
		}
		r := selftestRow{Name: v.Name, Counts: v.Selftests.Counts(), Vs: "baseline"}
		if i > 0 {
			r.Vs = "same outcomes"
			for _, c := range d.SelftestChanges[v.Name] {
				ch := fmt.Sprintf("%s: %s -> %s", c.Test, c.Base, c.Cand)
				if c.Kind == compare.Unconfirmed {
					ch += fmt.Sprintf(" (unconfirmed: failed in %d of %d boots, not flagged)", c.FailedBoots, c.Boots)
				}
				if c.Suspect != "" {
					ch += " (suspect: " + c.Suspect + ")"
				}
				r.Changes = append(r.Changes, ch)
			}
			if len(r.Changes) > 0 {
				r.Vs = "DIFFERS"
			}
		}
		page.Selftests = append(page.Selftests, r)
	}
	// One box plot per metric, every set on it.
	var order []string
	perMetric := map[string][]series{}
	meta := map[string]compare.Metric{}
	for _, v := range d.Variants[1:] {
		for _, m := range d.Metrics[v.Name] {
			if _, ok := meta[m.Name]; !ok {
				order = append(order, m.Name)
				meta[m.Name] = m
				perMetric[m.Name] = []series{{Label: d.Baseline, Color: color[d.Baseline], Values: m.Base.Values}}
			}
			perMetric[m.Name] = append(perMetric[m.Name], series{Label: v.Name, Color: color[v.Name], Values: m.Cand.Values})
			page.Rows = append(page.Rows, row{Candidate: v.Name, Metric: m.Name + " (" + m.Unit + ")",
				Base: format.Summary(m.Base), Cand: format.Summary(m.Cand), Change: num.Delta(m.DeltaPct), P: pq(m.P, m), Q: pq(m.Q, m),
				N: fmt.Sprintf("%d+%d", m.Base.N, m.Cand.N), Verdict: m.Verdict.Row(), Why: unjudgedWhy(m, d.Options, in.RunID)})
		}
	}
	for _, name := range order {
		if meta[name].Direction == agentproto.Informational {
			continue
		}
		page.Plots = append(page.Plots, plot{Title: name + " (" + meta[name].Unit + "), " + format.DirectionWords(meta[name].Direction),
			SVG: template.HTML(boxPlot(perMetric[name], meta[name].Unit))})
	}
	var windows []series
	for _, v := range d.Variants {
		windows = append(windows, series{Label: v.Name, Color: color[v.Name], Values: v.WindowUS})
	}
	// The verdict heading is the terminal's verdict line, word for word;
	// below it what fails, then candidates not measured at all, then
	// deciding metrics that could not be judged. Without them an
	// unmeasured candidate (no metric row) would look as if it had passed.
	kind := compare.Judge(d)
	page.Heading = verdictLine{Class: verdictClass(kind), Text: "verdict: " + d.Headline()}
	for _, x := range d.Failing() {
		page.Verdict = append(page.Verdict, verdictLine{Class: "regression", Text: "fails: " + x})
	}
	// What the heading states already is not said twice.
	if kind != verdict.ComparisonUnmeasured {
		for _, x := range d.Unmeasured() {
			page.Verdict = append(page.Verdict, verdictLine{Class: "unmeasured", Text: "unmeasured: " + x})
		}
	}
	if kind != verdict.ComparisonUnjudged {
		for _, x := range d.Unjudged() {
			page.Verdict = append(page.Verdict, verdictLine{Class: "unjudged", Text: x})
		}
	}
	for _, note := range d.LoadNotes() {
		page.Verdict = append(page.Verdict, verdictLine{Class: "unjudged", Text: "note: " + note})
	}
	page.Power = d.PowerLines()
	for _, l := range d.UnavailableLines() {
		page.Unavailable = append(page.Unavailable, fmt.Sprintf("%s: %s: %s", l.Set, l.Reason, strings.Join(l.Metrics, ", ")))
	}
	page.Irqsoff = template.HTML(boxPlot(windows, "us"))
	page.Histogram = template.HTML(histogram(in.Groups, color))
	return page
}

// pq renders a p- or q-value of m's row: "-" where there is none (an
// informational metric is never judged, a metric without samples has no
// p).
func pq(v float64, m compare.Metric) string {
	if m.Verdict == verdict.Info || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

// unjudgedWhy says why m was unjudged and what would judge it ("" when it
// was judged): its n, its family, the smallest q its n can reach against
// its alpha, and the boots per side that would reach it, as the command
// that adds them when the diff is of one stored run (runID, 0: unknown).
func unjudgedWhy(m compare.Metric, o compare.Options, runID int64) string {
	if m.LoadHeld {
		return "not called a regression: the sides ran at unlike host loads on the host's clock (the note above); boots cannot judge it, an interleaved session can"
	}
	if m.Verdict != verdict.Unjudged {
		if !m.NotRuledOut {
			return ""
		}
		why := fmt.Sprintf("not ruled out at n=%d+%d: it could be %s", m.Base.N, m.Cand.N, compare.WorstText(&m))
		if need := compare.RuleOutBoots(&m, o); need > 0 && runID != 0 {
			return why + fmt.Sprintf("; about %d boots per side would tell: kregress run --resume %d --repetitions %d", need, runID, need)
		} else if need > 0 {
			return why + fmt.Sprintf("; about %d boots per side would tell", need)
		}
		return why
	}
	family := max(m.Family, 1)
	// Benjamini-Hochberg's q of a lone smallest p, as compare.Reachable
	// judges it.
	smallest := compare.MinMannWhitneyP(m.Base.N, m.Cand.N) * float64(family)
	why := fmt.Sprintf("n=%d+%d in a family of %d: the smallest q reachable is %.3f > alpha %.3g", m.Base.N, m.Cand.N, family, smallest, m.Alpha)
	need := compare.NeededReps(family, m.Alpha)
	switch {
	case need == 0:
		return why + "; no number of boots per side would judge it at this alpha"
	case runID != 0:
		return why + fmt.Sprintf("; %d boots per side would judge it: kregress run --resume %d --repetitions %d", need, runID, need)
	}
	return why + fmt.Sprintf("; %d boots per side would judge it", need)
}

// verdictClass is the page's style of the verdict heading of a diff
// judged k (compare.Judge): a pass has none.
func verdictClass(k verdict.Comparison) string {
	switch k {
	case verdict.ComparisonRegression, verdict.ComparisonUnmeasured, verdict.ComparisonUnjudged:
		return string(k)
	}
	return ""
}

type selftestRow struct {
	Name, Counts, Vs string
	Changes          []string
}

type pageData struct {
	Selftests []selftestRow
	Title     string
	Notes     []string
	Baseline  string
	Alpha     float64
	Sets      []setRow
	Rows      []row
	Heading   verdictLine // the verdict line, as the terminal prints it
	Verdict   []verdictLine
	Power     []string // what each deciding metric found unchanged could have seen
	// Unavailable: per set and reason, the metrics its kernel cannot
	// produce (missing from the table above, never zero).
	Unavailable []string
	Plots       []plot
	Irqsoff     template.HTML
	Histogram   template.HTML
}

type setRow struct{ Name, Color, Runs, Worst, Holders, WindowHolders, Sections string }
type row struct{ Candidate, Metric, Base, Cand, Change, P, Q, N, Verdict, Why string }
type verdictLine struct{ Class, Text string }
type plot struct {
	Title string
	SVG   template.HTML
}

// pageHead opens a page: its title and style.
const pageHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
.regression{background:#fbd5d5;font-weight:bold}.improvement{background:#d5f5d5}.unmeasured,.unjudged,.too-few{background:#fdf0c8}
.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}
.plot{margin:1.5em 0}.plot h3{font-size:1em;margin:0 0 .3em}
.notes{color:#555;font-size:.9em}.why{font-weight:normal;font-size:.9em;color:#444}h2.verdict{padding:4px 8px}
</style></head><body>
`

// diffBody is one diff's part of a page: its notes, tables, verdict and
// plots.
const diffBody = `<div class="notes">{{range .Notes}}<div>{{.}}</div>{{end}}</div>
<h2>Sets</h2>
<table><tr><th class="l">set</th><th class="l">runs</th><th>irqs-off worst, median (us)</th><th class="l">worst held by (per run)</th><th class="l">per window</th><th class="l">worst sections (start -&gt; end | top frames)</th></tr>
{{range .Sets}}<tr><td class="l"><span class="swatch" style="background:{{.Color}}"></span>{{.Name}}</td><td class="l">{{.Runs}}</td><td>{{.Worst}}</td><td class="l">{{.Holders}}</td><td class="l">{{.WindowHolders}}</td><td class="l">{{.Sections}}</td></tr>
{{end}}</table>
<h2>Comparison with {{.Baseline}}</h2>
<p>Median [95% CI], Mann-Whitney U p-value, q: p adjusted for the metrics judged together (Benjamini-Hochberg), the verdict taken on q at alpha={{.Alpha}}.</p>
<table><tr><th class="l">candidate</th><th class="l">metric</th><th>{{.Baseline}}</th><th>candidate</th><th>change</th><th>p</th><th>q</th><th>n</th><th class="l">verdict</th></tr>
{{range .Rows}}<tr class="{{.Verdict}}"><td class="l">{{.Candidate}}</td><td class="l">{{.Metric}}</td><td>{{.Base}}</td><td>{{.Cand}}</td><td>{{.Change}}</td><td>{{.P}}</td><td>{{.Q}}</td><td>{{.N}}</td><td class="l">{{.Verdict}}{{if .Why}}<div class="why">{{.Why}}</div>{{end}}</td></tr>
{{end}}</table>
<h2 class="verdict {{.Heading.Class}}">{{.Heading.Text}}</h2>
{{range .Verdict}}<p class="{{.Class}}">{{.Text}}</p>
{{end}}{{if .Power}}<ul>{{range .Power}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .Unavailable}}<p>Not measured (the kernel cannot produce them; not a failure, not zero):</p><ul>{{range .Unavailable}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{if .Selftests}}<h2>selftests (correctness gate)</h2>
<table><tr><th class="l">set</th><th class="l">outcomes</th><th class="l">vs baseline</th></tr>
{{range .Selftests}}<tr class="{{if .Changes}}regression{{end}}"><td class="l">{{.Name}}</td><td class="l">{{.Counts}}</td><td class="l">{{.Vs}}{{range .Changes}}<div>{{.}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}
<h2>Distributions</h2>
{{range .Plots}}<div class="plot"><h3>{{.Title}}</h3>{{.SVG}}</div>
{{end}}
<div class="plot"><h3>irqs-off worst section per sampling window (us)</h3>{{.Irqsoff}}</div>
<div class="plot"><h3>memory.stat read latency, power-of-2 buckets (share of reads)</h3>{{.Histogram}}</div>
`

var pageTmpl = template.Must(template.New("page").Parse(pageHead + "<h1>{{.Title}}</h1>\n" + diffBody + "</body></html>\n"))

// shiftHeadings moves every heading of a diff's page one level down (its
// style too), so that a diff's sections nest under its part's heading in
// a page of several.
var shiftHeadings = strings.NewReplacer("h3", "h4", "h2", "h3")

// partsTmpl is the page of several diffs: a list of them, then a section
// per diff, each under its title, holding what a page of one holds.
var partsTmpl = template.Must(template.New("parts").Parse(shiftHeadings.Replace(pageHead) + `<h1>{{.Title}}</h1>
<ul class="parts">{{range $i, $p := .Parts}}<li><a href="#part-{{$i}}">{{$p.Title}}</a></li>{{end}}</ul>
{{range $i, $p := .Parts}}<section id="part-{{$i}}">
<h2>{{$p.Title}}</h2>
{{template "diff" $p}}</section>
{{end}}</body></html>
{{define "diff"}}` + shiftHeadings.Replace(diffBody) + `{{end}}`))

// boxPlot draws one horizontal box (quartiles, median, min-max whiskers)
// per series, with every value as a dot.
func boxPlot(ss []series, unit string) string {
	const width, left, right, rowH, top = 760, 150, 20, 34, 10
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range s.Values {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	height := top + rowH*len(ss) + 40
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-size="12">`, width, height, width, height)
	if math.IsInf(lo, 1) {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text></svg>`, left, top+14)
		return b.String()
	}
	lo, hi = paddedRange(lo, hi)
	x := func(v float64) float64 { return left + (v-lo)/(hi-lo)*float64(width-left-right) }
	for i, s := range ss {
		y := float64(top + rowH*i)
		mid := y + rowH/2
		fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end" dominant-baseline="middle">%s</text>`, left-8, mid, template.HTMLEscapeString(s.Label))
		if len(s.Values) == 0 {
			continue
		}
		v := append([]float64(nil), s.Values...)
		sort.Float64s(v)
		q1, med, q3 := stats.Quantile(v, .25), stats.Quantile(v, .5), stats.Quantile(v, .75)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#555"/>`, x(v[0]), x(v[len(v)-1]), mid, mid)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s" fill-opacity="0.85" stroke="#333"/>`, x(q1), y+6, math.Max(x(q3)-x(q1), 2), rowH-12, s.Color)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#000" stroke-width="2"/>`, x(med), x(med), y+6, y+rowH-6)
		for _, p := range v {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="#222" fill-opacity="0.6"/>`, x(p), mid)
		}
	}
	axisY := top + rowH*len(ss) + 4
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#999"/>`, left, width-right, axisY, axisY)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`, x(v), axisY+16, num.Number(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#555">%s</text></svg>`, width-right, axisY+16+12, template.HTMLEscapeString(unit))
	return b.String()
}

// histogram draws the read-latency histograms of every set as grouped bars
// (share of each set's reads per power-of-2 bucket).
func histogram(groups []compare.Group, color map[string]string) string {
	type hist struct {
		label  string
		shares []float64
	}
	var hs []hist
	maxBuckets := 0
	for _, g := range groups {
		var sum []float64
		total := 0.0
		for _, r := range g.Results {
			if !r.Status.OK() || len(r.Document) == 0 {
				continue
			}
			var doc struct {
				Histograms map[string]agentproto.Histogram `json:"histograms"`
			}
			if json.Unmarshal(r.Document, &doc) != nil {
				continue
			}
			for i, c := range doc.Histograms["read_latency_us"].Buckets {
				for len(sum) <= i {
					sum = append(sum, 0)
				}
				sum[i] += float64(c)
				total += float64(c)
			}
		}
		if total == 0 {
			continue
		}
		for i := range sum {
			sum[i] /= total
		}
		maxBuckets = max(maxBuckets, len(sum))
		hs = append(hs, hist{g.Label, sum})
	}
	const width, height, left, bottom, top = 760, 220, 40, 40, 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-size="11">`, width, height, width, height)
	if len(hs) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="30">no histogram in these results</text></svg>`, left)
		return b.String()
	}
	slot := float64(width-left-10) / float64(maxBuckets)
	barW := slot * 0.8 / float64(len(hs))
	plotH := float64(height - top - bottom)
	for i := 0; i < maxBuckets; i++ {
		for j, h := range hs {
			share := 0.0
			if i < len(h.shares) {
				share = h.shares[i]
			}
			bh := share * plotH
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %.1f%%</title></rect>`,
				float64(left)+slot*float64(i)+slot*0.1+barW*float64(j), float64(top)+plotH-bh, barW, bh, color[h.label], template.HTMLEscapeString(h.label), share*100)
		}
		label := "<1"
		if i > 0 {
			label = fmt.Sprintf("%d", 1<<(i-1))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`, float64(left)+slot*(float64(i)+0.5), height-bottom+14, label)
	}
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#999"/>`, left, width-10, height-bottom, height-bottom)
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">lower bucket bound, us</text></svg>`, left, height-8)
	return b.String()
}

// sweepChart is one metric's line chart of a sweep: each set's median
// against the vCPU counts, its interval as whiskers, and the table of
// each count's comparison beneath.
type sweepChart struct {
	Title string
	SVG   template.HTML
	Rows  []sweepRow
}

type sweepRow struct{ VCPUs, Candidate, Base, Cand, Change, Q, N, Verdict string }

// RenderSweep writes one page of a run that swept vCPU counts: first
// each metric against the counts (a line chart per metric, every set a
// line, and each count's comparison beneath it), then a section per
// count (ins[i] at counts[i]) holding what a page of one diff holds.
func RenderSweep(w io.Writer, title string, counts []int, ins []Input) error {
	if len(counts) != len(ins) {
		return fmt.Errorf("htmlreport: a sweep of %d vCPU counts with %d parts", len(counts), len(ins))
	}
	doc := struct {
		Title  string
		Counts string
		Charts []sweepChart
		Parts  []pageData
	}{Title: title, Counts: format.SweepCounts(counts)}
	diffs := make([]*compare.Diff, len(ins))
	for i, in := range ins {
		diffs[i] = in.Diff
		doc.Parts = append(doc.Parts, newPage(in))
	}
	doc.Charts = sweepCharts(counts, diffs)
	return sweepTmpl.Execute(w, doc)
}

// sweepCharts draws a chart per metric: the baseline's line (its medians
// at each count, from the first candidate compared there) and each
// candidate's. Informational metrics are charted too: their curve is
// what a sweep is for, even where no verdict is taken.
func sweepCharts(counts []int, diffs []*compare.Diff) []sweepChart {
	var order []string
	byMetric := map[string][]compare.Curve{}
	for _, c := range compare.Curves(counts, diffs) {
		if _, ok := byMetric[c.Metric]; !ok {
			order = append(order, c.Metric)
		}
		byMetric[c.Metric] = append(byMetric[c.Metric], c)
	}
	var out []sweepChart
	for _, name := range order {
		cs := byMetric[name]
		first := cs[0]
		color := map[string]string{first.Baseline: Palette[0]}
		if len(diffs) > 0 {
			for i, v := range diffs[0].Variants {
				color[v.Name] = Palette[i%len(Palette)]
			}
		}
		base := sweepLine{Label: first.Baseline, Role: "baseline", Color: color[first.Baseline]}
		seen := map[int]bool{}
		var lines []sweepLine
		ch := sweepChart{Title: fmt.Sprintf("%s (%s), %s, against vCPUs", name, first.Unit, format.DirectionWords(first.Direction))}
		for _, c := range cs {
			line := sweepLine{Label: c.Candidate, Role: "candidate", Color: color[c.Candidate]}
			if line.Color == "" {
				line.Color = Palette[(len(lines)+1)%len(Palette)]
			}
			for _, p := range c.Points {
				m := p.Metric
				if !seen[p.VCPUs] {
					seen[p.VCPUs] = true
					base.Points = append(base.Points, linePoint{X: p.VCPUs, S: m.Base})
				}
				line.Points = append(line.Points, linePoint{X: p.VCPUs, S: m.Cand})
				ch.Rows = append(ch.Rows, sweepRow{VCPUs: fmt.Sprint(p.VCPUs), Candidate: c.Candidate, Base: format.Summary(m.Base), Cand: format.Summary(m.Cand),
					Change: num.Delta(m.DeltaPct), Q: pq(m.Q, m), N: fmt.Sprintf("%d+%d", m.Base.N, m.Cand.N), Verdict: m.Verdict.Row()})
			}
			lines = append(lines, line)
		}
		sort.Slice(base.Points, func(i, j int) bool { return base.Points[i].X < base.Points[j].X })
		ch.SVG = template.HTML(lineChart(counts, append([]sweepLine{base}, lines...), fmt.Sprintf("%s (%s)", name, first.Unit)))
		out = append(out, ch)
	}
	return out
}

// sweepLine is one set's medians against the counts; Role says whether
// it is the baseline or a candidate.
type sweepLine struct {
	Label, Role, Color string
	Points             []linePoint
}

// linePoint is a set's sample at one vCPU count.
type linePoint struct {
	X int
	S compare.Summary
}

// lineChart draws each line's medians against the vCPU counts (x on a
// linear scale, so the cost per CPU reads as a slope), with the median's
// interval as a whisker where it is known, the axes labelled (x vCPUs,
// y yLabel: the metric and its unit), and a legend naming each line and
// its role.
func lineChart(counts []int, lines []sweepLine, yLabel string) string {
	const width, height, left, right, top, bottom = 760, 300, 84, 160, 12, 40
	lo, hi := math.Inf(1), math.Inf(-1)
	see := func(v float64) {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, l := range lines {
		for _, p := range l.Points {
			if p.S.N > 0 {
				see(p.S.Median)
				see(p.S.Lo)
				see(p.S.Hi)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-size="12">`, width, height, width, height)
	if math.IsInf(lo, 1) || len(counts) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">no data</text></svg>`, left, top+14)
		return b.String()
	}
	lo, hi = paddedRange(lo, hi)
	xlo, xhi := float64(counts[0]), float64(counts[0])
	for _, n := range counts {
		xlo, xhi = math.Min(xlo, float64(n)), math.Max(xhi, float64(n))
	}
	if xhi == xlo {
		xlo, xhi = xlo-1, xhi+1
	}
	plotW, plotH := float64(width-left-right), float64(height-top-bottom)
	x := func(n int) float64 { return left + (float64(n)-xlo)/(xhi-xlo)*plotW }
	y := func(v float64) float64 { return top + (hi-v)/(hi-lo)*plotH }
	axisY := float64(height - bottom)
	fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#999"/>`, left, left+plotW, axisY, axisY)
	fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%.1f" stroke="#999"/>`, left, left, top, axisY)
	for _, n := range counts {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#555">%d</text>`, x(n), axisY+16, n)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">vCPUs</text>`, left+plotW/2, height-4)
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle" fill="#555">%s</text>`, left-6, y(v), num.Number(v))
	}
	// The y axis's label runs up beside it, left of the tick labels.
	fmt.Fprintf(&b, `<text x="16" y="%.1f" transform="rotate(-90 16 %.1f)" text-anchor="middle" fill="#555">%s</text>`, top+plotH/2, top+plotH/2, template.HTMLEscapeString(yLabel))
	for i, l := range lines {
		var pts []string
		for _, p := range l.Points {
			if p.S.N == 0 || math.IsNaN(p.S.Median) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p.X), y(p.S.Median)))
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`, strings.Join(pts, " "), l.Color)
		}
		for _, p := range l.Points {
			if p.S.N == 0 || math.IsNaN(p.S.Median) {
				continue
			}
			cx := x(p.X)
			if !math.IsInf(p.S.Lo, 0) && !math.IsInf(p.S.Hi, 0) && !math.IsNaN(p.S.Lo) && p.S.Lo != p.S.Hi {
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, cx, cx, y(p.S.Lo), y(p.S.Hi), l.Color)
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, cx-4, cx+4, y(p.S.Lo), y(p.S.Lo), l.Color)
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, cx-4, cx+4, y(p.S.Hi), y(p.S.Hi), l.Color)
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s at %d vCPUs: %s</title></circle>`, cx, y(p.S.Median), l.Color, template.HTMLEscapeString(l.Label), p.X, template.HTMLEscapeString(format.Summary(p.S)))
		}
		ly := top + 10 + 32*i
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="12" height="12" fill="%s"/>`, left+plotW+14, ly-9, l.Color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`, left+plotW+32, ly+1, template.HTMLEscapeString(l.Label))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" fill="#555">%s</text>`, left+plotW+32, ly+14, l.Role)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// sweepHead opens a sweep's page: a page of parts' head, whose plot
// titles are h4, with the charts' titles, h3 under the page's h2 as on
// a page of one diff, styled as every plot's title.
var sweepHead = strings.Replace(shiftHeadings.Replace(pageHead), ".plot h4{", ".plot h3,.plot h4{", 1)

// sweepTmpl is a sweep's page: the charts against vCPUs first, then a
// section per count holding what a page of one diff holds.
var sweepTmpl = template.Must(template.New("sweep").Parse(sweepHead + `<h1>{{.Title}}</h1>
<h2>Each metric against vCPUs ({{.Counts}})</h2>
<p>Each set's median at each vCPU count, whiskers its 95% CI; beneath, each count's comparison (its own cells only, never another count's), q over every count's metrics judged together.</p>
{{range .Charts}}<div class="plot sweep"><h3>{{.Title}}</h3>{{.SVG}}
<table><tr><th>vCPUs</th><th class="l">candidate</th><th>baseline</th><th>candidate</th><th>change</th><th>q</th><th>n</th><th class="l">verdict</th></tr>
{{range .Rows}}<tr class="{{.Verdict}}"><td>{{.VCPUs}}</td><td class="l">{{.Candidate}}</td><td>{{.Base}}</td><td>{{.Cand}}</td><td>{{.Change}}</td><td>{{.Q}}</td><td>{{.N}}</td><td class="l">{{.Verdict}}</td></tr>
{{end}}</table></div>
{{end}}<ul class="parts">{{range $i, $p := .Parts}}<li><a href="#part-{{$i}}">{{$p.Title}}</a></li>{{end}}</ul>
{{range $i, $p := .Parts}}<section id="part-{{$i}}">
<h2>{{$p.Title}}</h2>
{{template "diff" $p}}</section>
{{end}}</body></html>
{{define "diff"}}` + shiftHeadings.Replace(diffBody) + `{{end}}`))

// paddedRange is a plot's value axis for values in [lo, hi]: 5% of the
// span added at each end (a span of 1 each way around a single value),
// never below zero when no value is, since durations and counts cannot be.
func paddedRange(lo, hi float64) (float64, float64) {
	if hi == lo {
		hi, lo = hi+1, lo-1
	}
	pad := (hi - lo) * 0.05
	if lo >= 0 {
		lo = math.Max(0, lo-pad)
	} else {
		lo -= pad
	}
	return lo, hi + pad
}

// Package trendreport renders the nightly's history as one offline HTML
// page: per experiment, variant and metric, a line plot of each night's
// median, the nights that were (or were accepted as) baselines marked,
// and the change points the detector found drawn across the plot. No
// script, no external resource: it opens from a CI artifact as is.
package trendreport

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/kregress/kregress/results/format/num"
)

// Point is one night of one metric: its first run, and the runs of the
// further looks a grey zone made it measure, whose boots its Value pools.
type Point struct {
	RunID    int64   `json:"run_id"`
	Night    string  `json:"night"`
	Value    float64 `json:"value"`
	Baseline bool    `json:"baseline"` // marked good or accepted
	// Looks: the runs of the night's further looks (grey zone); they
	// are part of this night, never nights of their own.
	Looks []int64 `json:"looks,omitempty"`
}

// Trend is one variant's metric over the nights.
type Trend struct {
	Experiment string  `json:"experiment"`
	Variant    string  `json:"variant"`
	Metric     string  `json:"metric"`
	Unit       string  `json:"unit"`
	Points     []Point `json:"points"`
	// Shifts are the run ids where a change point starts.
	Shifts []int64 `json:"shifts"`
	// Bisects: the bisects a red night of this metric was handed.
	Bisects []BisectLink `json:"bisects,omitempty"`
}

// BisectLink ties a red night to the bisect that searched its commits.
type BisectLink struct {
	RunID int64  `json:"run_id"` // the red night
	ID    int64  `json:"bisect_id"`
	Text  string `json:"text"` // "bisect N: culprit ..., confirmation"
	// Href: the bisect's report, relative to the page ("": none written).
	Href string `json:"href,omitempty"`
}

// Colours: the line, baseline nights, change points.
const (
	lineColour     = "#4e79a7"
	baselineColour = "#59a14f"
	shiftColour    = "#e15759"
	bisectColour   = "#b00020"
)

// Render writes the page.
func Render(w io.Writer, title string, trends []Trend) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title><style>body{font-family:sans-serif;margin:2em}h2{margin-top:2em}figure{margin:1em 0}figcaption{color:#555;font-size:13px}</style></head><body>", template.HTMLEscapeString(title))
	fmt.Fprintf(&b, "<h1>%s</h1><p>Each night's median per metric. <span style=\"color:%s\">&#9679;</span> a baseline night (good, or accepted by a person); <span style=\"color:%s\">&#9474;</span> a change point (E-Divisive means): the night a shift began; <span style=\"color:%s\">&#9673;</span> a red night handed to a bisect (a link to its report when one was written). A night measured again in the grey zone is one night: its looks' boots are pooled.</p>", template.HTMLEscapeString(title), baselineColour, shiftColour, bisectColour)
	exp := ""
	for _, t := range trends {
		if t.Experiment != exp {
			exp = t.Experiment
			fmt.Fprintf(&b, "<h2>%s</h2>", template.HTMLEscapeString(exp))
		}
		fmt.Fprintf(&b, "<figure>%s<figcaption>%s: %s (%s), %s%s%s</figcaption></figure>",
			plot(t), template.HTMLEscapeString(t.Variant), template.HTMLEscapeString(t.Metric), template.HTMLEscapeString(t.Unit), nightsText(len(t.Points)), looksText(t), shiftsText(t))
		for _, l := range bisectLinks(t) {
			text := template.HTMLEscapeString(fmt.Sprintf("run %d: %s", l.RunID, l.Text))
			if l.Href != "" {
				text = fmt.Sprintf("<a href=\"%s\">%s</a>", template.HTMLEscapeString(l.Href), text)
			}
			fmt.Fprintf(&b, "<p class=\"bisect\">%s</p>", text)
		}
	}
	if len(trends) == 0 {
		b.WriteString("<p>No nights yet.</p>")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// bisectLinks is t's bisect links, each bisect once per night: an
// earlier run's link and tonight's of the same (resumed) bisect are one.
func bisectLinks(t Trend) []BisectLink {
	type key struct{ run, id int64 }
	seen := map[key]bool{}
	var out []BisectLink
	for _, l := range t.Bisects {
		if k := (key{l.RunID, l.ID}); !seen[k] {
			seen[k] = true
			out = append(out, l)
		}
	}
	return out
}

// nightsText counts nights: "1 night", "2 nights".
func nightsText(n int) string {
	if n == 1 {
		return "1 night"
	}
	return fmt.Sprintf("%d nights", n)
}

// looksText says which nights were measured again in the grey zone:
// "; 1 with a grey-zone look (run 42, pooled into the night of run 41)".
func looksText(t Trend) string {
	var nights, runs []string
	for _, p := range t.Points {
		if len(p.Looks) == 0 {
			continue
		}
		nights = append(nights, fmt.Sprint(p.RunID))
		for _, id := range p.Looks {
			runs = append(runs, fmt.Sprint(id))
		}
	}
	if len(nights) == 0 {
		return ""
	}
	looks := "a grey-zone look"
	if len(runs) > len(nights) {
		looks = "grey-zone looks"
	}
	return fmt.Sprintf("; %d with %s (run %s, pooled into the night of run %s)", len(nights), looks, strings.Join(runs, ", "), strings.Join(nights, ", "))
}

// label is a figure as the page reads it: a plain number and its unit,
// "14250 reads/s", never 1.425e+04.
func label(v float64, unit string) string {
	if unit == "" {
		return num.Number(v)
	}
	return num.Number(v) + " " + unit
}

func shiftsText(t Trend) string {
	if len(t.Shifts) == 0 {
		return ""
	}
	var s []string
	for _, id := range t.Shifts {
		s = append(s, fmt.Sprintf("run %d", id))
	}
	return "; shifts at " + strings.Join(s, ", ")
}

func plot(t Trend) string {
	// The left margin holds the tick labels: a number and its unit.
	const width, height, left, right, top, bottom = 760, 200, 110, 20, 12, 28
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-size="11">`, width, height, width, height)
	if len(t.Points) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="30">no nights</text></svg>`, left)
		return b.String()
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range t.Points {
		lo, hi = math.Min(lo, p.Value), math.Max(hi, p.Value)
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.1
	lo, hi = lo-pad, hi+pad
	x := func(i int) float64 {
		if len(t.Points) == 1 {
			return float64(left+width-right) / 2
		}
		return float64(left) + float64(i)*float64(width-left-right)/float64(len(t.Points)-1)
	}
	y := func(v float64) float64 { return float64(top) + (hi-v)/(hi-lo)*float64(height-top-bottom) }
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#999"/>`, left, height-bottom, width-right, height-bottom)
	for _, v := range []float64{hi - pad, (hi + lo) / 2, lo + pad} {
		fmt.Fprintf(&b, `<text class="tick" x="%d" y="%.0f" text-anchor="end" fill="#555">%s</text>`, left-6, y(v)+4, template.HTMLEscapeString(label(v, t.Unit)))
	}
	shift := map[int64]bool{}
	for _, id := range t.Shifts {
		shift[id] = true
	}
	for i, p := range t.Points {
		if shift[p.RunID] {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="3"/>`, x(i), top, x(i), height-bottom, shiftColour)
		}
	}
	var pts []string
	for i, p := range t.Points {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(p.Value)))
	}
	fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="3" points="%s"/>`, lineColour, strings.Join(pts, " "))
	bisects := map[int64][]BisectLink{}
	for _, l := range bisectLinks(t) {
		bisects[l.RunID] = append(bisects[l.RunID], l)
	}
	for i, p := range t.Points {
		c := lineColour
		if p.Baseline {
			c = baselineColour
		}
		tip := fmt.Sprintf("run %d%s, %s: %s", p.RunID, looksOf(p), p.Night, label(p.Value, t.Unit))
		ls := bisects[p.RunID]
		if len(ls) == 0 {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>%s</title></circle>`, x(i), y(p.Value), c, template.HTMLEscapeString(tip))
			continue
		}
		// A red night handed to a bisect: a red ring, and a link to
		// the bisect's report when one was written.
		l := ls[0]
		tip += "; " + l.Text
		mark := fmt.Sprintf(`<circle class="red-night" cx="%.1f" cy="%.1f" r="8" fill="%s" stroke="%s" stroke-width="4"><title>%s</title></circle>`, x(i), y(p.Value), c, bisectColour, template.HTMLEscapeString(tip))
		if l.Href != "" {
			mark = fmt.Sprintf(`<a href="%s">%s</a>`, template.HTMLEscapeString(l.Href), mark)
		}
		b.WriteString(mark)
	}
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">%s (run %d)</text>`, left, height-8, template.HTMLEscapeString(first.Night), first.RunID)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#555">%s (run %d)</text>`, width-right, height-8, template.HTMLEscapeString(last.Night), last.RunID)
	b.WriteString(`</svg>`)
	return b.String()
}

// looksOf names a night's further looks: " + look run 42".
func looksOf(p Point) string {
	s := ""
	for _, id := range p.Looks {
		s += fmt.Sprintf(" + look run %d", id)
	}
	return s
}

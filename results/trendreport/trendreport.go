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
)

// Point is one night of one metric.
type Point struct {
	RunID    int64   `json:"run_id"`
	Night    string  `json:"night"`
	Value    float64 `json:"value"`
	Baseline bool    `json:"baseline"` // marked good or accepted
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
)

// Render writes the page.
func Render(w io.Writer, title string, trends []Trend) error {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title><style>body{font-family:sans-serif;margin:2em}h2{margin-top:2em}figure{margin:1em 0}figcaption{color:#555;font-size:13px}</style></head><body>", template.HTMLEscapeString(title))
	fmt.Fprintf(&b, "<h1>%s</h1><p>Each night's median per metric. <span style=\"color:%s\">&#9679;</span> a baseline night (good, or accepted by a person); <span style=\"color:%s\">&#9474;</span> a change point (E-Divisive means): the night a shift began.</p>", template.HTMLEscapeString(title), baselineColour, shiftColour)
	exp := ""
	for _, t := range trends {
		if t.Experiment != exp {
			exp = t.Experiment
			fmt.Fprintf(&b, "<h2>%s</h2>", template.HTMLEscapeString(exp))
		}
		fmt.Fprintf(&b, "<figure>%s<figcaption>%s: %s (%s), %d nights%s</figcaption></figure>",
			plot(t), template.HTMLEscapeString(t.Variant), template.HTMLEscapeString(t.Metric), template.HTMLEscapeString(t.Unit), len(t.Points), shiftsText(t))
		for _, l := range t.Bisects {
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
	const width, height, left, right, top, bottom = 760, 200, 60, 20, 12, 28
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
	fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end" fill="#555">%.4g</text>`, left-4, y(hi-pad)+4, hi-pad)
	fmt.Fprintf(&b, `<text x="%d" y="%.0f" text-anchor="end" fill="#555">%.4g</text>`, left-4, y(lo+pad)+4, lo+pad)
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
	for i, p := range t.Points {
		c := lineColour
		if p.Baseline {
			c = baselineColour
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"><title>run %d, %s: %.4g</title></circle>`, x(i), y(p.Value), c, p.RunID, template.HTMLEscapeString(p.Night), p.Value)
	}
	first, last := t.Points[0], t.Points[len(t.Points)-1]
	fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#555">%s (run %d)</text>`, left, height-8, template.HTMLEscapeString(first.Night), first.RunID)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#555">%s (run %d)</text>`, width-right, height-8, template.HTMLEscapeString(last.Night), last.RunID)
	b.WriteString(`</svg>`)
	return b.String()
}

package htmlreport

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/compare/comparetest"
	"github.com/kregress/kregress/results/internal/chromium"
)

// A sweep's page opens with a line chart per judged and informational
// metric: a line per set through its medians at each count, whiskers
// for the intervals, then each count's own comparison.
func TestRenderSweep(t *testing.T) {
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for _, n := range []int{2, 8, 16} {
			f, k := float64(i), float64(n)
			b := comparetest.Res("stock", results.StatusOK, 1000*k+f, 40*k+f, "x")
			c := comparetest.Res("relock", results.StatusOK, 1000*k+f, 10*k+f, "x")
			b.Provenance.SweepVCPUs, c.Provenance.SweepVCPUs = n, n
			rs = append(rs, b, c)
		}
	}
	counts, diffs, err := compare.CompareSweep(rs, "stock", compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := compare.BySweep(rs)
	var ins []Input
	for i, d := range diffs {
		ins = append(ins, Input{Title: "run 4 at " + []string{"2", "8", "16"}[i] + " vCPUs", Diff: d, Groups: []compare.Group{{Label: "stock", Results: results.OfVariant(blocks[i], "stock")}, {Label: "relock", Results: results.OfVariant(blocks[i], "relock")}}})
	}
	var b bytes.Buffer
	if err := RenderSweep(&b, "kregress run 4: rstat, vCPU sweep", counts, ins); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	testfile.Golden(t, filepath.Join("testdata", "sweep.html"), page)
	charts := page[:strings.Index(page, `<ul class="parts">`)]
	// reads_per_sec, hold_us and ooms: three charts of two lines each.
	if n := strings.Count(charts, "<polyline"); n != 6 {
		t.Errorf("%d lines in the charts, want 6 (3 metrics x 2 sets)", n)
	}
	// Each chart's axes are labelled (the y axis with the metric and
	// its unit), its legend names each set and its role, and an
	// informational metric's title says it is not judged.
	for _, want := range []string{"hold_us (us), lower is better, against vCPUs", ">16</text>", "relock at 16 vCPUs: 162", "stock at 8 vCPUs: 322",
		`transform="rotate(-90 16 136.0)" text-anchor="middle" fill="#555">hold_us (us)</text>`, `fill="#555">vCPUs</text>`,
		"ooms (n), information, not judged, against vCPUs"} {
		if !strings.Contains(charts, want) {
			t.Errorf("charts lack %q", want)
		}
	}
	for _, legend := range []string{`>stock</text><text [^>]*>baseline</text>`, `>relock</text><text [^>]*>candidate</text>`} {
		if n := len(regexp.MustCompile(legend).FindAllString(charts, -1)); n != 3 {
			t.Errorf("%d charts' legends have %#q, want 3", n, legend)
		}
	}
	if strings.Count(page, `<section id="part-`) != 3 {
		t.Error("not a section per count")
	}
	if err := RenderSweep(&b, "x", counts[:2], ins); err == nil {
		t.Error("a count per part is not checked")
	}
}

// growthSweep is the page of a sweep of stock and relock over counts,
// one metric each, irqsoff_worst_us: 6 boots per variant and count, the
// i-th boot at n vCPUs measuring base(n)+i for stock and cand(n)+i for
// relock. It returns the page and the curve of relock against stock.
func growthSweep(t *testing.T, counts []int, base, cand func(n int) float64) ([]byte, compare.Curve) {
	t.Helper()
	cell := func(variant string, n int, v float64) *results.Result {
		r := &results.Result{Variant: variant, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "irqsoff_worst_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: v}}}
		r.Provenance.SweepVCPUs = n
		return r
	}
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for _, n := range counts {
			rs = append(rs, cell("stock", n, base(n)+float64(i)), cell("relock", n, cand(n)+float64(i)))
		}
	}
	got, diffs, err := compare.CompareSweep(rs, "stock", compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	_, blocks := compare.BySweep(rs)
	var ins []Input
	for i, d := range diffs {
		ins = append(ins, Input{Title: fmt.Sprintf("run 4 at %d vCPUs", got[i]), Diff: d,
			Groups: []compare.Group{{Label: "stock", Results: results.OfVariant(blocks[i], "stock")}, {Label: "relock", Results: results.OfVariant(blocks[i], "relock")}}})
	}
	var b bytes.Buffer
	if err := RenderSweep(&b, "kregress run 4: rstat, vCPU sweep", got, ins); err != nil {
		t.Fatal(err)
	}
	curves := compare.Curves(got, diffs)
	if len(curves) != 1 {
		t.Fatalf("%d curves, want relock's irqsoff_worst_us", len(curves))
	}
	return b.Bytes(), curves[0]
}

// rgb is the colour of a "#rrggbb" of the Palette.
func rgb(t *testing.T, hex string) [3]uint32 {
	t.Helper()
	var c [3]uint32
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &c[0], &c[1], &c[2]); err != nil {
		t.Fatalf("colour %q: %v", hex, err)
	}
	return c
}

// plotArea is where a line chart's axes are in a screenshot: the x axis
// from left to right on row axisY, the y axis from top down to it.
type plotArea struct{ left, right, top, axisY int }

// findPlotArea finds the first line chart from the top of img by its
// axes (#999, 1 px wide: one opaque row or two at half): the first row
// with a run of axis colour at least 200 px long is the x axis, the
// longest column of axis colour rising from near its left end the y
// axis (where the axes meet, their halves add up to neither colour;
// gaps of up to 12 px are the lines' dots drawn over it).
func findPlotArea(t *testing.T, img image.Image) plotArea {
	t.Helper()
	axis := [3]uint32{0x99, 0x99, 0x99}
	isAxis := func(x, y int) bool { return chromium.Is(img.At(x, y), axis, 1, 0.5) }
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; {
			end := x
			for end < b.Max.X && isAxis(end, y) {
				end++
			}
			if end-x < 200 {
				x = end + 1
				continue
			}
			p := plotArea{left: x, right: end, axisY: y, top: y}
			for c := x - 3; c <= x+3; c++ {
				// A line's dot drawn over the axis breaks it for a few rows.
				top := y
				for r := y - 1; r >= b.Min.Y && top-r <= 12; r-- {
					if isAxis(c, r) {
						top = r
					}
				}
				if top < p.top || top == p.top && c > p.left {
					p.left, p.top = c, top
				}
			}
			if p.axisY-p.top < 100 {
				t.Fatalf("the chart's x axis at row %d (x %d-%d) has a y axis of %d px", y, x, end-1, p.axisY-p.top)
			}
			return p
		}
	}
	t.Fatal("no chart axis in the screenshot")
	return plotArea{}
}

// heightAt is how high above the x axis the line of colour is drawn at
// screen column x: the median row of its opaque pixels within 1 px of
// the column, within the plot (false: none there).
func heightAt(img image.Image, p plotArea, colour [3]uint32, x int) (int, bool) {
	var ys []int
	for y := p.top - 6; y <= p.axisY+6; y++ {
		for dx := -1; dx <= 1; dx++ {
			if chromium.Is(img.At(x+dx, y), colour) {
				ys = append(ys, y)
			}
		}
	}
	if len(ys) == 0 {
		return 0, false
	}
	sort.Ints(ys)
	return p.axisY - ys[len(ys)/2], true
}

// The sweep's chart shows the metric against the vCPU count for both
// variants, as headless Chromium draws it: its axes labelled and its
// legend naming baseline and candidate; each variant's colour in the
// plot as a line, not a dot, and in the legend; and each point where its
// count and median put it. The x axis found in the screenshot gives
// where each count is (the scale is linear in the count); the
// baseline's ends at 2 and 32 vCPUs give the pixels per microsecond; the
// other six points must lie within 4 px of where their medians say. The
// baseline grows 40 us per vCPU, the candidate starts higher and grows 4
// us per vCPU: the lines cross, so a swapped colour, a reversed or
// index-spaced x axis or a missing line each put points far off.
func TestSweepChartInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	counts := []int{2, 8, 16, 32}
	page, curve := growthSweep(t, counts, func(n int) float64 { return 40 * float64(n) }, func(n int) float64 { return 400 + 4*float64(n) })
	// What a reader sees of the chart: its axes' labels, and its legend
	// naming each set with its role beneath.
	text := chromium.Text(t, page)
	for _, want := range []string{"\nirqsoff_worst_us (us)\n", "\nvCPUs\n", "\nstock\nbaseline\n", "\nrelock\ncandidate\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("Chromium shows no %q in the chart", strings.Trim(want, "\n"))
		}
	}
	img := chromium.Screenshot(t, page, 1100, 900)
	p := findPlotArea(t, img)
	t.Logf("plot area in the %dx%d screenshot: x %d-%d, y %d-%d", img.Bounds().Dx(), img.Bounds().Dy(), p.left, p.right, p.top, p.axisY)
	sub := func(r image.Rectangle) image.Image {
		return img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(r)
	}
	plot := sub(image.Rect(p.left-6, p.top-6, p.right+7, p.axisY+7))
	legend := sub(image.Rect(p.right+8, p.top-6, img.Bounds().Max.X, p.axisY+7))
	lines := []struct {
		name   string
		colour [3]uint32
		median func(compare.SweepPoint) float64
	}{
		{"baseline stock", rgb(t, Palette[0]), func(s compare.SweepPoint) float64 { return s.Metric.Base.Median }},
		{"candidate relock", rgb(t, Palette[1]), func(s compare.SweepPoint) float64 { return s.Metric.Cand.Median }},
	}
	for _, l := range lines {
		// A line across the plot, 2 px wide, is at least half the plot's
		// width in pixels of exactly its colour (antialiasing blends the
		// rest); its dots alone are far fewer. A legend swatch is 12 x 12.
		inPlot, inLegend := chromium.Count(plot, l.colour), chromium.Count(legend, l.colour)
		t.Logf("%s: %d pixels of its colour in the plot, %d in the legend", l.name, inPlot, inLegend)
		if inPlot < (p.right-p.left)/2 {
			t.Errorf("%s: %d pixels of its colour in the plot, want a line across it (%d)", l.name, inPlot, (p.right-p.left)/2)
		}
		if inLegend < 100 {
			t.Errorf("%s: %d pixels of its colour in the legend, want a swatch", l.name, inLegend)
		}
	}
	if len(curve.Points) != len(counts) {
		t.Fatalf("the curve has %d points, want one per count", len(curve.Points))
	}
	// x of a count: the axis spans the lowest to the highest count.
	column := func(n int) int {
		return p.left + int(math.Round(float64(n-counts[0])/float64(counts[len(counts)-1]-counts[0])*float64(p.right-p.left)))
	}
	heights := make([][]int, len(lines))
	for i, l := range lines {
		for _, pt := range curve.Points {
			h, ok := heightAt(img, p, l.colour, column(pt.VCPUs))
			if !ok {
				t.Fatalf("%s: no point at %d vCPUs (screen column %d)", l.name, pt.VCPUs, column(pt.VCPUs))
			}
			heights[i] = append(heights[i], h)
		}
		t.Logf("%s: heights above the x axis at %v vCPUs: %v px", l.name, counts, heights[i])
	}
	first, last := curve.Points[0], curve.Points[len(curve.Points)-1]
	h0, h1 := float64(heights[0][0]), float64(heights[0][len(counts)-1])
	perUS := (h1 - h0) / (lines[0].median(last) - lines[0].median(first))
	if perUS <= 0 {
		t.Fatalf("the baseline rises from %.0f us at %d vCPUs to %.0f us at %d, its line from %.0f px to %.0f px: x reversed or not by count",
			lines[0].median(first), first.VCPUs, lines[0].median(last), last.VCPUs, h0, h1)
	}
	for i, l := range lines {
		for j, pt := range curve.Points {
			want := h0 + (l.median(pt)-lines[0].median(first))*perUS
			if d := float64(heights[i][j]) - want; d > 4 || d < -4 {
				t.Errorf("%s at %d vCPUs (median %.1f us): drawn %d px above the axis, want %.0f", l.name, pt.VCPUs, l.median(pt), heights[i][j], want)
			}
		}
	}
}

// Every plot's title is styled as a plot's title, whatever its heading
// level: h3 on a page of one diff, h4 in a part of a page of several,
// and on a sweep's page h3 for the charts against vCPUs beside h4 in
// each count's part.
func TestPlotTitlesStyled(t *testing.T) {
	one := render(t)
	var parts bytes.Buffer
	d, err := compare.CompareGroups(groups(), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Title: "part", Diff: d, Groups: groups()}
	if err := RenderParts(&parts, "two parts", []Input{in, in}); err != nil {
		t.Fatal(err)
	}
	sweep, _ := growthSweep(t, []int{2, 8}, func(n int) float64 { return float64(n) }, func(n int) float64 { return 2 * float64(n) })
	title := regexp.MustCompile(`<div class="plot[^"]*"><(h[1-6])>`)
	for name, page := range map[string]string{"one diff": string(one), "parts": parts.String(), "sweep": string(sweep)} {
		style := page[strings.Index(page, "<style>"):strings.Index(page, "</style>")]
		levels := map[string]bool{}
		for _, m := range title.FindAllStringSubmatch(page, -1) {
			levels[m[1]] = true
		}
		if name == "sweep" && len(levels) != 2 {
			t.Errorf("sweep: plot titles at %v, want the charts' and the parts' levels", levels)
		}
		for h := range levels {
			if !regexp.MustCompile(`(^|[{},]|<style>)\.plot ` + h + `[,{]`).MatchString(style) {
				t.Errorf("%s: the plots' %s titles have no style of their own:\n%s", name, h, style)
			}
		}
	}
}

package trendreport

import (
	"bytes"
	"fmt"
	"github.com/kregress/kregress/results/internal/chromium"
	"strings"
	"testing"
)

func sample() []Trend {
	t := Trend{Experiment: "rstat-every-n", Variant: "per-cpu-relock", Metric: "rstat_lock_hold_p99_us", Unit: "us", Shifts: []int64{16}}
	for i := 0; i < 20; i++ {
		v := 50.0 + float64(i%3)
		if i >= 10 {
			v += 20
		}
		t.Points = append(t.Points, Point{RunID: int64(6 + i), Night: fmt.Sprintf("2026-11-%02d 02:00", i+1), Value: v, Baseline: i < 10 || i > 12})
	}
	return []Trend{t}
}

func TestPageIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, "kregress nightly", sample()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<svg", "<polyline", "rstat_lock_hold_p99_us", "shifts at run 16", "run 25, 2026-11-20 02:00: 71"} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://cdn", "https://"} {
		if strings.Contains(page, bad) {
			t.Fatalf("page has %q", bad)
		}
	}
}

// The plot really draws: headless Chromium's screenshot has the line's,
// the baselines' and the change point's colours.
func TestTrendRendersInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	var page bytes.Buffer
	Render(&page, "kregress nightly", sample())
	img := chromium.Screenshot(t, page.Bytes(), 900, 500)
	for name, c := range map[string][3]uint32{"line": {0x4e, 0x79, 0xa7}, "baseline": {0x59, 0xa1, 0x4f}, "shift": {0xe1, 0x57, 0x59}} {
		if n := chromium.Count(img, c); n < 20 {
			t.Fatalf("screenshot has %d pixels of the %s colour", n, name)
		}
	}
}

// twoNights is two nights of reads/s, the second measured again in the
// grey zone (its look run 42 pooled into run 41's night) and handed to
// bisect 4, whose report was written as bisect-4.md.
func twoNights() []Trend {
	return []Trend{{Experiment: "rstat-every-n", Variant: "per-cpu-relock", Metric: "reads_per_sec", Unit: "reads/s",
		Points: []Point{
			{RunID: 40, Night: "2026-11-01 02:00", Value: 14250, Baseline: true},
			{RunID: 41, Night: "2026-11-02 02:00", Value: 5180, Looks: []int64{42}},
		},
		Bisects: []BisectLink{{RunID: 41, ID: 4, Text: "bisect 4: culprit abc123456789 mm: slow reads, confirmed", Href: "bisect-4.md"}}}}
}

func renderString(t *testing.T, trends []Trend) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, "kregress nightly", trends); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A grey-zone look is part of its night: two nights, one measured twice,
// are "2 nights", and the caption says which run was a look of which.
func TestNightsCountedNotLooks(t *testing.T) {
	page := renderString(t, twoNights())
	for _, want := range []string{"(reads/s), 2 nights; 1 with a grey-zone look (run 42, pooled into the night of run 41)", "run 41 + look run 42, 2026-11-02 02:00: 5180 reads/s"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "3 nights") {
		t.Error("a look counted as a night")
	}
	one := twoNights()
	one[0].Points = one[0].Points[:1]
	if page := renderString(t, one); !strings.Contains(page, "(reads/s), 1 night</figcaption>") {
		t.Errorf("one night is not \"1 night\":\n%s", page)
	}
}

// Tick labels are plain numbers with their unit, never 1.425e+04.
func TestTickLabelsArePlainNumbersWithUnits(t *testing.T) {
	page := renderString(t, twoNights())
	for _, want := range []string{">14250 reads/s</text>", ">9715 reads/s</text>", ">5180 reads/s</text>"} {
		if !strings.Contains(page, `<text class="tick"`) || !strings.Contains(page, want) {
			t.Errorf("page lacks the tick label %q", want)
		}
	}
	if strings.Contains(page, "e+0") {
		t.Errorf("page has a figure in exponent notation:\n%s", page)
	}
}

// A red night handed to a bisect is ringed red on the plot and links to
// the bisect's report; without a report it is ringed, not linked.
func TestRedNightLinksToItsBisect(t *testing.T) {
	page := renderString(t, twoNights())
	if !strings.Contains(page, `<a href="bisect-4.md"><circle class="red-night"`) || strings.Count(page, `class="red-night"`) != 1 {
		t.Fatalf("the red night's point does not link its bisect:\n%s", page)
	}
	// The same bisect linked twice (an earlier run's link, tonight's
	// resumed one) is one link.
	tr := twoNights()
	tr[0].Bisects = append(tr[0].Bisects, tr[0].Bisects[0])
	if page := renderString(t, tr); strings.Count(page, `<p class="bisect">`) != 1 || strings.Count(page, `class="red-night"`) != 1 {
		t.Fatalf("a bisect linked twice is shown twice:\n%s", page)
	}
	tr = twoNights()
	tr[0].Bisects[0].Href = ""
	page = renderString(t, tr)
	if !strings.Contains(page, `<circle class="red-night"`) || strings.Contains(page, "<a href") {
		t.Fatalf("a bisect without a report: the night should be ringed, not linked:\n%s", page)
	}
}

// Headless Chromium shows "2 nights" for two nights, one of them with a
// grey-zone look, and draws the red night's ring.
func TestTwoNightsWithALookInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	page := []byte(renderString(t, twoNights()))
	text := chromium.Text(t, page)
	t.Logf("rendered text:\n%s", text)
	for _, want := range []string{"2 nights", "1 with a grey-zone look (run 42, pooled into the night of run 41)", "14250 reads/s", "run 41: bisect 4: culprit abc123456789"} {
		if !strings.Contains(text, want) {
			t.Errorf("Chromium shows no %q", want)
		}
	}
	if strings.Contains(text, "3 nights") {
		t.Error("Chromium shows \"3 nights\": a look counted as a night")
	}
	if n := chromium.Count(chromium.Screenshot(t, page, 900, 500), [3]uint32{0xb0, 0x00, 0x20}); n < 20 {
		t.Errorf("screenshot has %d pixels of the red night's ring", n)
	}
}

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

package trendreport

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
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
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: apt-get install chromium (make test-deps does)")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "trend.html")
	f, _ := os.Create(html)
	Render(f, "kregress nightly", sample())
	f.Close()
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars", "--window-size=900,500", "--screenshot="+shot, "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	pf, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := png.Decode(pf)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	colours := map[string][3]uint32{"line": {0x4e, 0x79, 0xa7}, "baseline": {0x59, 0xa1, 0x4f}, "shift": {0xe1, 0x57, 0x59}}
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			for name, c := range colours {
				if near(r>>8, c[0]) && near(g>>8, c[1]) && near(b>>8, c[2]) {
					count[name]++
				}
			}
		}
	}
	for name := range colours {
		if count[name] < 20 {
			t.Fatalf("screenshot has %d pixels of the %s colour (counts %v)", count[name], name, count)
		}
	}
}

func near(a, b uint32) bool { return a+10 >= b && a <= b+10 }

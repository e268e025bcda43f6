package htmlreport

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

func groups() []compare.Group {
	mk := func(variant string, i int, shift float64) *results.Result {
		doc := fmt.Sprintf(`{"histograms":{"read_latency_us":{"unit":"us","buckets":[0,0,0,0,5,%d,%d,3]}},"irqsoff":{"windows":[{"latency_us":%d,"holder":"handle_softirqs","cpu":0,"started_at":"a","ended_at":"b"},{"latency_us":%d,"holder":"cgroup_rstat_flush","cpu":1,"started_at":"a","ended_at":"b"}]}}`,
			40+int(shift)*30, 60-int(shift)*30, 100+i*10, 300+i*7-int(shift)*200)
		return &results.Result{Variant: variant, Status: results.StatusOK, Document: []byte(doc), IrqsoffHolder: "cgroup_rstat_flush", IrqsoffWorstUS: 300,
			Metrics: []report.Metric{
				{Name: "reads_per_sec", Unit: "reads/s", Direction: report.HigherIsBetter, Value: 2400 + float64(i*13%50) + 100*shift},
				{Name: "rstat_lock_hold_p99_us", Unit: "us", Direction: report.LowerIsBetter, Value: 52 - 20*shift + float64(i%3)},
				{Name: "oom_kills", Unit: "kills", Direction: report.Informational, Value: 3},
			}}
	}
	var a, b []*results.Result
	for i := 0; i < 6; i++ {
		a = append(a, mk("stock", i, 0))
		b = append(b, mk("per-cpu-relock", i, 1))
	}
	// The selftest gate: one test fails only in the candidate.
	a[0].Selftests = []report.SelftestResult{{Binary: "test_core", Name: "test_cgcore_populated", Outcome: report.SelftestPass}}
	b[0].Selftests = []report.SelftestResult{{Binary: "test_core", Name: "test_cgcore_populated", Outcome: report.SelftestFail}}
	return []compare.Group{{Label: "stock", Results: a}, {Label: "per-cpu-relock", Results: b}}
}

func render(t *testing.T) []byte {
	gs := groups()
	d, err := compare.CompareGroups(gs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, Input{Title: "kregress run 1: rstat-relock", Notes: []string{"accel tcg"}, Diff: d, Groups: gs}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestPageIsSelfContained(t *testing.T) {
	page := string(render(t))
	for _, want := range []string{"<svg", "per-cpu-relock", "rstat_lock_hold_p99_us", "improvement", "read latency", "cgroup_rstat_flush",
		"cgroup selftests (correctness gate)", "DIFFERS", "test_core/test_cgcore_populated: pass -&gt; fail"} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://cdn", "https://"} {
		if strings.Contains(page, bad) {
			t.Fatalf("page is not self-contained: has %q", bad)
		}
	}
	if strings.Contains(page, "oom_kills (kills), ") {
		t.Fatal("informational metric got a plot")
	}
}

// TestPlotsRenderInChromium loads the page in real headless Chromium and
// checks the screenshot shows the plots: pixels in the baseline's and the
// candidate's colours, not a blank page.
func TestPlotsRenderInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: apt-get install chromium (make deps does)")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	os.WriteFile(html, render(t), 0o644)
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars", "--window-size=1100,2200",
		"--screenshot="+shot, "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Count pixels of each set's colour (boxes are 85% opaque on white,
	// histogram bars fully opaque: accept both).
	near := func(r, g, b uint32, want [3]uint32) bool {
		for _, alpha := range []float64{1, 0.85} {
			ok := true
			for i, c := range [3]uint32{r, g, b} {
				exp := alpha*float64(want[i]) + (1-alpha)*255
				if d := float64(c) - exp; d > 12 || d < -12 {
					ok = false
				}
			}
			if ok {
				return true
			}
		}
		return false
	}
	blue, orange := [3]uint32{0x4e, 0x79, 0xa7}, [3]uint32{0xf2, 0x8e, 0x2b}
	nb, no, nonWhite := 0, 0, 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if r < 245 || g < 245 || b < 245 {
				nonWhite++
			}
			if near(r, g, b, blue) {
				nb++
			}
			if near(r, g, b, orange) {
				no++
			}
		}
	}
	t.Logf("screenshot %dx%d: %d non-white, %d baseline-coloured, %d candidate-coloured pixels", bounds.Dx(), bounds.Dy(), nonWhite, nb, no)
	if nb < 2000 || no < 2000 {
		t.Fatalf("plots did not render: %d baseline and %d candidate pixels", nb, no)
	}
}

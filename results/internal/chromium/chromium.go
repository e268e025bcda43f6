// Package chromium renders an HTML file in headless Chromium and counts
// the pixels of given colours in the screenshot: how the report tests
// check that their plots really draw, not only that the markup is there.
package chromium

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Screenshot renders page (an HTML document) at width x height and
// returns the picture. It fails t when Chromium is missing or fails.
func Screenshot(t testing.TB, page []byte, width, height int) image.Image {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: apt-get install chromium (make test-deps does)")
	}
	dir := t.TempDir()
	html := filepath.Join(dir, "page.html")
	if err := os.WriteFile(html, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--hide-scrollbars",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+shot, "file://"+html)
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
	return img
}

// Count counts the pixels of img within 12 levels of colour drawn at any
// of the opacities over white (1 for opaque fills).
func Count(img image.Image, colour [3]uint32, opacities ...float64) int {
	if len(opacities) == 0 {
		opacities = []float64{1}
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			px := [3]uint32{r >> 8, g >> 8, bl >> 8}
			for _, a := range opacities {
				ok := true
				for i := range px {
					exp := a*float64(colour[i]) + (1-a)*255
					if d := float64(px[i]) - exp; d > 12 || d < -12 {
						ok = false
						break
					}
				}
				if ok {
					n++
					break
				}
			}
		}
	}
	return n
}

// Package chromium renders an HTML file in headless Chromium and counts
// the pixels of given colours in the screenshot: how the report tests
// check that their plots really draw, not only that the markup is there.
package chromium

import (
	"bytes"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Screenshot renders page (an HTML document) at width x height and
// returns the picture. It fails t when Chromium is missing or fails.
func Screenshot(t testing.TB, page []byte, width, height int) image.Image {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	run(t, dir, page, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+shot)
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

// textScript replaces the page's body with its rendered text
// (innerText: what a reader sees, laid out, without markup or hidden
// elements) in one element Text finds in the dumped DOM.
const textScript = `<script>(function(){var t=document.body.innerText;var p=document.createElement("pre");p.id="kregress-inner-text";p.textContent=t;document.body.replaceChildren(p);})()</script>`

// Text renders page (an HTML document) in headless Chromium and returns
// the text it shows, as a reader would select and copy it. The script
// that reads it is added to the test's copy only: the page itself stays
// without any.
func Text(t testing.TB, page []byte) string {
	t.Helper()
	dom := run(t, t.TempDir(), append(append([]byte(nil), page...), textScript...), "--dump-dom")
	const open, end = `<pre id="kregress-inner-text">`, `</pre>`
	i := strings.Index(dom, open)
	j := strings.LastIndex(dom, end)
	if i < 0 || j < i {
		t.Fatalf("chromium: no rendered text in the dumped page:\n%s", dom)
	}
	return html.UnescapeString(dom[i+len(open) : j])
}

// run renders page, written into dir, with Chromium and the extra
// arguments, and returns what Chromium printed on stdout.
func run(t testing.TB, dir string, page []byte, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: apt-get install chromium (make test-deps does)")
	}
	file := filepath.Join(dir, "page.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + filepath.Join(dir, "profile"), "--hide-scrollbars"}, args...), "file://"+file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String()
}

// Count counts the pixels of img within 12 levels of colour drawn at any
// of the opacities over white (1 for opaque fills).
func Count(img image.Image, colour [3]uint32, opacities ...float64) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if Is(img.At(x, y), colour, opacities...) {
				n++
			}
		}
	}
	return n
}

// Is says whether px is within 12 levels of colour drawn at any of the
// opacities over white (1 for opaque fills): Count's test of one pixel,
// for tests that look at where a colour is, not only how much of it.
func Is(px color.Color, colour [3]uint32, opacities ...float64) bool {
	if len(opacities) == 0 {
		opacities = []float64{1}
	}
	r, g, bl, _ := px.RGBA()
	got := [3]uint32{r >> 8, g >> 8, bl >> 8}
	for _, a := range opacities {
		ok := true
		for i := range got {
			exp := a*float64(colour[i]) + (1-a)*255
			if d := float64(got[i]) - exp; d > 12 || d < -12 {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

package patches

import (
	"errors"
	"flag"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/testfile"
)

// shortLinesMiB sizes TestShortLinesParseInLittleMemory's patch; the
// default keeps the test quick, and `-shortlines-mib 60` makes a 60 MB
// patch (to measure the peak RSS with /usr/bin/time -v).
var shortLinesMiB = flag.Int("shortlines-mib", 6, "size of TestShortLinesParseInLittleMemory's patch, MiB")

// TestShortLinesParseInLittleMemory: a patch of millions of one-character
// lines (a hunk of "+" lines, and plain "a" lines with no diff) is read
// and parsed in a small multiple of its size: no string or index per
// line, no copy per mbox message.
func TestShortLinesParseInLittleMemory(t *testing.T) {
	size := *shortLinesMiB << 20
	n := size / 2
	hunk := "--- a/f\n+++ b/f\n@@ -0,0 +1," + strconv.Itoa(n) + " @@\n" + strings.Repeat("+\n", n)
	for name, text := range map[string]string{
		"hunk.patch":  hunk,
		"plain.patch": strings.Repeat("a\n", n),
		"mbox.patch":  "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] x\n\n" + hunk,
	} {
		path := filepath.Join(t.TempDir(), name)
		testfile.Write(t, path, text)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadSeries(path)
		runtime.ReadMemStats(&after)
		var nd *NoDiffError
		if err != nil && !(name == "plain.patch" && errors.As(err, &nd)) {
			t.Fatalf("%s: %v", name, err)
		}
		// Reading the file (its size) and one string copy of it, with
		// slack for the rest.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*uint64(len(text)) {
			t.Errorf("%s: %d MiB allocated to read and parse %d MiB of short lines (want at most 3 times its size)", name, alloc>>20, len(text)>>20)
		}
	}
}

// TestVariantTotalCapped: the series cap holds for all the paths of one
// variant together, not per path.
func TestVariantTotalCapped(t *testing.T) {
	defer func(c int64) { seriesCap = c }(seriesCap)
	seriesCap = 2 << 20
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, n+".patch")
		testfile.Write(t, p, "--- a/"+n+"\n+++ b/"+n+"\n@@ -1 +1 @@\n-a\n+b\n"+strings.Repeat("x", 1<<20))
		paths = append(paths, p)
	}
	fam := &Family{Workload: "w", Baseline: "stock", Variants: map[string]*Variant{"stock": {}, "big": {Patches: paths}}}
	// Refused by the files' sizes: none of them is read.
	read := 0
	err := fam.Load("fam", func(p string) ([]*Patch, error) { read++; return ReadSeries(p) })
	var tl *TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "variant big") || read != 0 {
		t.Fatalf("three 1 MiB patches under a 2 MiB cap: %v (%d read)", err, read)
	}
	// The same files as a directory, refused before they are read.
	if _, err := ReadSeries(dir); !errors.As(err, &tl) || !strings.Contains(err.Error(), dir+" (the whole series)") {
		t.Fatalf("a directory of three 1 MiB patches under a 2 MiB cap: %v", err)
	}
	// What stat cannot see in advance (a quilt series) is still
	// capped as it is read.
	series := filepath.Join(dir, "series")
	testfile.Write(t, series, "a.patch\nb.patch\nc.patch\n")
	if _, err := ReadSeries(series); !errors.As(err, &tl) {
		t.Fatalf("a quilt series of three 1 MiB patches under a 2 MiB cap: %v", err)
	}
}

// TestQuiltSeriesFileBounded: a quilt series file that is a FIFO is
// refused at once (it hung), one that never ends is refused at its cap.
func TestQuiltSeriesFileBounded(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "series"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSeries(dir); err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Fatalf("FIFO series: %v", err)
	}
	big := filepath.Join(t.TempDir(), "series")
	testfile.Write(t, big, strings.Repeat("# comment\n", maxQuiltSeriesBytes/10+1))
	if _, err := ReadSeries(big); !regularfile.IsTooLarge(err) {
		t.Fatalf("series over the cap: %v", err)
	}
}

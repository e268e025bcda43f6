package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/internal/usage"
)

// TestReadFileRefusesHostileFiles: a FIFO (no writer: a plain open
// would wait forever), /dev/zero (endless), a directory and a file over
// the cap each end at once in a usage error naming the file.
func TestReadFileRefusesHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "run.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.json")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: a size past the cap without writing it.
	if err := fh.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	for path, want := range map[string]string{
		fifo:        "not a regular file (a named pipe)",
		"/dev/zero": "not a regular file (a character device)",
		dir:         "not a regular file (a directory)",
		big:         "is larger than " + regularfile.Bytes(MaxFileBytes),
	} {
		_, err := ReadFile(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) || !usage.Is(err) {
			t.Errorf("ReadFile(%s) = %v, want a usage error naming it and saying %q", path, err, want)
		}
	}
}

// TestReadStopsAtTheCap: a stream with no size (a pipe) is decoded as it
// comes and refused once it passes MaxFileBytes, not read to its end.
func TestReadStopsAtTheCap(t *testing.T) {
	r := &countingSpaces{}
	_, err := Read(r)
	if err == nil || !strings.Contains(err.Error(), "is larger than "+regularfile.Bytes(MaxFileBytes)) {
		t.Fatalf("Read of an endless stream: %v", err)
	}
	if r.n > MaxFileBytes+1<<20 {
		t.Errorf("read %d bytes of an endless stream, cap %d", r.n, MaxFileBytes)
	}
}

// countingSpaces is an endless stream of JSON white space.
type countingSpaces struct{ n int64 }

func (c *countingSpaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	c.n += int64(len(p))
	return len(p), nil
}

// TestImportRefusesBadNames: an export whose variant, experiment or
// metric name is outside the one character set (a comma, a '|', HTML)
// is refused as a usage error before anything is stored.
func TestImportRefusesBadNames(t *testing.T) {
	for what, edit := range map[string]func(*File){
		"variant x,y":    func(f *File) { f.Run.Variants[1] = "x,y"; f.Results[1].Variant = "x,y" },
		"result variant": func(f *File) { f.Results[0].Variant = "a|b" },
		"experiment":     func(f *File) { f.Run.Experiment = "<img src=x>" },
		"metric formula": func(f *File) { f.Results[0].Metrics[0].Name = "=HYPERLINK(1)" },
		"baseline":       func(f *File) { f.Run.Baseline = "a,b" },
		"family":         func(f *File) { f.Run.Family = "f g" },
	} {
		run, rs := sample()
		var buf bytes.Buffer
		if err := Write(&buf, run, rs); err != nil {
			t.Fatal(err)
		}
		f, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		edit(f)
		buf.Reset()
		if err := json.NewEncoder(&buf).Encode(f); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&buf); !usage.Is(err) || !strings.Contains(err.Error(), " name ") {
			t.Errorf("%s: %v, want a usage error naming the name", what, err)
		}
	}
	// A noise run's experiment ("noise:<experiment>") is a name.
	run, rs := sample()
	run.Experiment = "noise:rstat-relock"
	var buf bytes.Buffer
	Write(&buf, run, rs)
	if _, err := Read(&buf); err != nil {
		t.Errorf("noise run: %v", err)
	}
}

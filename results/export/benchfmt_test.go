package export

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/kregress/kregress/internal/testfile"
)

// TestBenchfmtGolden: the benchmark format's bytes stay as they were
// (testdata/benchfmt.golden), and benchfmt's own reader reads every ok
// result back with its metrics.
func TestBenchfmtGolden(t *testing.T) {
	run, rs := sample()
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, run, rs); err != nil {
		t.Fatal(err)
	}
	testfile.Golden(t, filepath.Join("testdata", "benchfmt.golden"), buf.String())
	r := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), "run.bench")
	n := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			if len(rec.Values) != 3 || string(rec.GetConfig("pkg")) != "kregress/rstat-relock" {
				t.Fatalf("read back %s with %d values, pkg %q", rec.Name, len(rec.Values), rec.GetConfig("pkg"))
			}
			n++
		case *benchfmt.SyntaxError:
			t.Fatal(rec)
		}
	}
	if n != 12 {
		t.Fatalf("read back %d results, want the 12 ok ones", n)
	}
}

type failWriter struct{ after int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errFull
	}
	w.after--
	return len(p), nil
}

// A write error is returned, whichever line it hits.
func TestBenchfmtWriteError(t *testing.T) {
	run, rs := sample()
	for _, after := range []int{0, 1, 5} {
		if err := WriteBenchfmt(&failWriter{after: after}, run, rs); !errors.Is(err, errFull) {
			t.Errorf("failing after %d writes: %v, want the write error", after, err)
		}
	}
}

package export

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
)

func sample() (*results.Run, []*results.Result) {
	rng := rand.New(rand.NewSource(1))
	run := &results.Run{ID: 7, Experiment: "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "per-cpu-relock"},
		StartedAt: time.Unix(1000, 0).UTC(), Status: results.RunComplete, Config: "x: 1"}
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		for j, v := range []string{"stock", "per-cpu-relock"} {
			shift := float64(j)
			rs = append(rs, &results.Result{Variant: v, Repetition: i + 1, Seq: 2*i + j + 1, Status: results.StatusOK,
				Document: []byte(`{"schema":"kregress.agent/v1"}`),
				Metrics: []agentproto.Metric{
					{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: 2400 + 80*rng.Float64() - 20*shift},
					{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 11 - 8*shift + rng.Float64()},
					{Name: "read_latency_p99_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: 12500 + 200*rng.Float64()},
				}})
		}
	}
	rs = append(rs, &results.Result{Variant: "stock", Status: results.StatusCrashed, Error: "Kernel panic"})
	return run, rs
}

func TestRoundTrip(t *testing.T) {
	run, rs := sample()
	var buf bytes.Buffer
	if err := Write(&buf, run, rs); err != nil {
		t.Fatal(err)
	}
	f, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	run2, rs2 := f.Runs()
	if run2.Experiment != run.Experiment || len(rs2) != len(rs) || rs2[0].Metrics[1].Value != rs[0].Metrics[1].Value || string(rs2[0].Document) != string(rs[0].Document) {
		t.Fatalf("round trip changed the run: %+v", run2)
	}
	if _, err := Read(strings.NewReader(`{"schema":"kregress.export/v9"}`)); err == nil {
		t.Fatal("other schema accepted")
	}
	if _, err := Read(strings.NewReader(`{"schema":"kregress.export/v1","extra":1}`)); err == nil {
		t.Fatal("unknown field accepted")
	}
	// A metric without a direction is refused on import, naming it.
	rs[0].Metrics[0].Direction = ""
	buf.Reset()
	Write(&buf, run, rs)
	if _, err := Read(&buf); err == nil || !strings.Contains(err.Error(), rs[0].Metrics[0].Name) || !strings.Contains(err.Error(), "has no direction") {
		t.Fatalf("metric without a direction: %v", err)
	}
}

// TestPValuesMatchBenchstat feeds the exported benchmark format to the real
// benchstat (golang.org/x/perf/cmd/benchstat, from the module cache) and
// checks that every p-value and n it prints equals kregress's.
func TestPValuesMatchBenchstat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchstat with go run")
	}
	run, rs := sample()
	path := filepath.Join(t.TempDir(), "run.bench")
	var buf bytes.Buffer
	if err := WriteBenchfmt(&buf, run, rs); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	out, err := exec.Command("go", "run", "golang.org/x/perf/cmd/benchstat", "-col", "/variant", path).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	t.Logf("benchstat:\n%s", out)
	var theirs []string
	for _, m := range regexp.MustCompile(`p=(\d\.\d+) n=(\d+)`).FindAllStringSubmatch(string(out), -1) {
		theirs = append(theirs, m[1]+"/"+m[2])
	}
	d, err := compare.Compare(rs, "stock", compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, m := range d.Metrics["per-cpu-relock"] {
		ours = append(ours, fmt.Sprintf("%.3f/%d", m.P, m.Cand.N))
	}
	if strings.Join(ours, " ") != strings.Join(theirs, " ") {
		t.Fatalf("p-values differ:\nkregress  %v\nbenchstat %v", ours, theirs)
	}
	if len(ours) != 3 {
		t.Fatalf("compared %d metrics, want 3", len(ours))
	}
}

// A file that is not an export is the user's mistake (exit 2), said
// without Go's decoder words; a file that cannot be read is not.
func TestNotAnExportIsAUsageError(t *testing.T) {
	for _, bad := range []string{`{"baseline": 1}`, `not json`, `{"schema":"kregress.export/v9"}`, `[1, 2]`} {
		_, err := Read(strings.NewReader(bad))
		var ue *usage.Error
		if !errors.As(err, &ue) || strings.Contains(err.Error(), "json:") {
			t.Errorf("%s: %v, want a usage error without Go's decoder words", bad, err)
		}
	}
	_, err := Read(iotest.ErrReader(errors.New("input/output error")))
	var ue *usage.Error
	if err == nil || errors.As(err, &ue) {
		t.Errorf("an unreadable file: %v, want an error that is not the user's", err)
	}
}

package config_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/orchestrator/config"
)

// Each built-in experiment on a third-party benchmark reads that program's
// real output: testdata/benchmark-output/EXPERIMENT.out is what the
// Debian package's program printed on stdout with the experiment's own
// arguments (fio's on a scratch file of the host, since its /dev/ram0 is
// the guest's), and the experiment's declaration must find every metric
// it declares there, with the values the output says. fio-ram is not run
// on the host before a build (it writes a block device), so this is the
// only check of its parser before a guest runs it.
func TestBuiltinBenchmarksParseRealOutput(t *testing.T) {
	want := map[string]map[string]float64{
		"hackbench": {"hackbench_time_s": 0.146},
		"stress-ng": {"context_ops_per_sec": 429.9878, "fork_ops_per_sec": 162.478723, "mmap_ops_per_sec": 5.413689},
		"fio-ram":   {"write_iops": 7741.629185, "write_lat_mean_us": 127.446335614, "write_lat_p99_us": 1433.6},
	}
	seen := 0
	for _, e := range config.Experiments() {
		cfg, _, err := config.Load(e, nil)
		if err != nil {
			t.Fatalf("built-in experiment %s: %v", e, err)
		}
		d := cfg.Workload.Benchmark
		if cfg.Workload.Name != bench.Name || d == nil {
			continue
		}
		seen++
		values, ok := want[e]
		if !ok {
			t.Errorf("%s: no real output of its program in testdata/benchmark-output (capture one, add its values here)", e)
			continue
		}
		out, err := os.ReadFile(filepath.Join("testdata", "benchmark-output", e+".out"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := bench.NewParser(d)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		got, err := p.Parse(out)
		if err != nil {
			t.Errorf("%s: its program's real output does not parse: %v", e, err)
			continue
		}
		for _, m := range d.Metrics {
			w, ok := values[m.Name]
			if !ok {
				t.Errorf("%s: metric %s has no expected value here", e, m.Name)
				continue
			}
			if g, ok := got[m.Name]; !ok || math.Abs(g-w) > 1e-9*math.Abs(w) {
				t.Errorf("%s: %s = %v (found: %v), want %v", e, m.Name, g, ok, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d built-in benchmark experiments, %d with real output here", seen, len(want))
	}
}

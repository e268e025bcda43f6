package judging

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/compare"
)

func TestOptionsDefaultPrimary(t *testing.T) {
	cfg := &config.Config{Workload: config.Workload{Name: "rstat"}, NoiseFloorPct: map[string]float64{"reads_per_sec": 2}}
	own := Options(cfg, 0.01, OwnWorkload)
	if !slices.Equal(own.DefaultPrimary, workload.Primary("rstat")) {
		t.Errorf("own workload: default primary %v, want rstat's %v", own.DefaultPrimary, workload.Primary("rstat"))
	}
	anyW := Options(cfg, 0.01, AnyWorkload)
	if !slices.Equal(anyW.DefaultPrimary, workload.AnyPrimary()) {
		t.Errorf("any workload: default primary %v, want every workload's %v", anyW.DefaultPrimary, workload.AnyPrimary())
	}
	for _, o := range []struct {
		name         string
		alpha, floor float64
		known        int
	}{{"own", own.Alpha, own.NoiseFloorPct["reads_per_sec"], len(own.KnownFailures)}, {"any", anyW.Alpha, anyW.NoiseFloorPct["reads_per_sec"], len(anyW.KnownFailures)}} {
		if o.alpha != 0.01 || o.floor != 2 || o.known == 0 {
			t.Errorf("%s: alpha %g, floor %g, %d known failures: want 0.01, 2 and the selftests' known failures", o.name, o.alpha, o.floor, o.known)
		}
	}
}

func TestOptionsNamedPrimaryOrGateOnly(t *testing.T) {
	named := &config.Config{Workload: config.Workload{Name: "rstat"}, PrimaryMetrics: []string{"reads_per_sec"}}
	for _, d := range []DefaultPrimary{OwnWorkload, AnyWorkload} {
		if o := Options(named, 0.05, d); o.DefaultPrimary != nil || !slices.Equal(o.Primary, named.PrimaryMetrics) {
			t.Errorf("named primary (%d): primary %v, default %v: want the named ones and no default", d, o.Primary, o.DefaultPrimary)
		}
	}
	gate := &config.Config{Workload: config.Workload{Name: "rstat"}, GateOnly: true}
	if o := Options(gate, 0.05, OwnWorkload); !o.GateOnly || o.DefaultPrimary != nil {
		t.Errorf("gate-only nightly: gate %v, default primary %v: want gate-only and none", o.GateOnly, o.DefaultPrimary)
	}
}

// load_bound reaches the comparison: the built-in default is compare's
// own default, a value set is passed on, one no comparison can use is
// refused naming the key.
func TestOptionsLoadBound(t *testing.T) {
	cfg, _, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Options(cfg, 0.05, OwnWorkload).LoadBound; got != compare.DefaultLoadBound {
		t.Errorf("default load_bound %g, want compare's %g", got, compare.DefaultLoadBound)
	}
	f := filepath.Join(t.TempDir(), "x.yaml")
	for body, want := range map[string]float64{"load_bound: 2\n": 2, "load_bound: .inf\n": math.Inf(1)} {
		os.WriteFile(f, []byte(body), 0o644)
		cfg, _, err := config.Load(f, nil)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if o := Options(cfg, 0.05, OwnWorkload); o.LoadBound != want || o.Validate() != nil {
			t.Errorf("%q: load bound %g (%v), want %g", body, o.LoadBound, o.Validate(), want)
		}
	}
	for _, body := range []string{"load_bound: 1\n", "load_bound: 0.5\n", "load_bound: -2\n", "load_bound: .nan\n"} {
		os.WriteFile(f, []byte(body), 0o644)
		if _, _, err := config.Load(f, nil); err == nil || !strings.Contains(err.Error(), "load_bound") {
			t.Errorf("%q: %v, want an error naming load_bound", body, err)
		}
	}
}

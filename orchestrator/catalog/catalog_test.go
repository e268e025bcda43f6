package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

func TestSeesFrom(t *testing.T) {
	lines := seesFrom(map[string]float64{"a": 0.1}, []string{"a", "b"}, 8, 2)
	if len(lines) != 2 || lines[0].MDEPct == nil || lines[0].CV != 0.1 || lines[1].Metric != "b" || lines[1].MDEPct != nil || lines[1].CV != 0 {
		t.Fatalf("a measured, b not: %+v", lines)
	}
	if lines := seesFrom(map[string]float64{"c": 0.1}, []string{"a"}, 8, 1); lines != nil {
		t.Fatalf("no primary metric measured gives lines: %+v", lines)
	}
	// At 3 boots per side nothing can reach alpha: no figure.
	lines = seesFrom(map[string]float64{"a": 0.1}, []string{"a"}, 3, 1)
	if len(lines) != 1 || lines[0].MDEPct != nil || lines[0].CV != 0.1 {
		t.Fatalf("3 boots: %+v", lines)
	}
}

// HostAccel follows vm.accel, and for auto what the host allows; forcing
// KVM where it is unusable says a run would fail.
func TestHostAccel(t *testing.T) {
	none := func() string { return "" }
	noKVM := func() string { return "no /dev/kvm" }
	for _, c := range []struct {
		want   string
		unus   func() string
		accel  string
		saying string
	}{
		{"tcg", none, "tcg", "vm.accel is tcg"},
		{"kvm", none, "kvm", "guests run under KVM here"},
		{"kvm", noKVM, "kvm", "KVM is unusable here (no /dev/kvm): a run would fail"},
		{"auto", noKVM, "tcg", "run under TCG: no /dev/kvm"},
		{"auto", none, "kvm", "would run under KVM"},
	} {
		accel, why := HostAccel(c.want, c.unus)
		if string(accel) != c.accel || !strings.Contains(why, c.saying) {
			t.Errorf("HostAccel(%s): %s, %q; want %s saying %q", c.want, accel, why, c.accel, c.saying)
		}
	}
}

// Every built-in is listed, without flags and without a store.
func TestListEveryBuiltIn(t *testing.T) {
	infos, err := List(t.Context(), nil, nil, "tcg", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) == 0 {
		t.Fatal("no built-in experiment listed")
	}
	for _, e := range infos {
		if e.Name == "" || e.Workload == "" || e.Repetitions == 0 || e.NotRunnable != "" {
			t.Errorf("built-in listed incompletely: %+v", e)
		}
	}
}

// TestMetrics: every metric of the workload in the agent's order, the
// primary ones marked, info metrics not judged.
func TestMetrics(t *testing.T) {
	rows := Metrics([]string{"rstat"}, func(string) []string { return []string{"rstat_lock_hold_p50_us"} })
	if len(rows) == 0 {
		t.Fatal("rstat has no metrics")
	}
	primaries := 0
	for _, r := range rows {
		if r.Workload != "rstat" || r.Judged != r.Spec.Judged() {
			t.Errorf("row %+v", r)
		}
		if r.Primary {
			primaries++
			if r.Name != "rstat_lock_hold_p50_us" {
				t.Errorf("%s marked primary", r.Name)
			}
		}
	}
	if primaries != 1 {
		t.Errorf("%d primary rows, want 1", primaries)
	}
}

// ListHere lists without a store (no measured spread, not an error), and
// creates none, under the accelerator the host allows; a configuration
// that does not load is a usage error.
func TestListHere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	t.Setenv("KREGRESS_STORE", path)
	noKVM := func() string { return "fake: no /dev/kvm" }
	infos, why, err := ListHere(t.Context(), Request{KVMUnusable: noKVM})
	if err != nil || len(infos) != len(config.Experiments()) || !strings.Contains(why, "TCG: fake: no /dev/kvm") {
		t.Fatalf("no store: %d experiments, %q, %v", len(infos), why, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("listing created the store")
	}
	if _, _, err := ListHere(t.Context(), Request{File: filepath.Join(t.TempDir(), "none.yaml"), KVMUnusable: noKVM}); !usage.Is(err) {
		t.Errorf("-c of a missing file: %v, not a usage error", err)
	}
}

// A noise run of this host in the configuration's store is preferred to
// the measured table (moved from cmd/kregress's experiments test).
func TestListHerePrefersALocalNoiseRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kregress.db")
	t.Setenv("KREGRESS_STORE", path)
	// A noise run of rstat-relock: 8 boots whose primary metric spreads
	// by about 11%, a third of the table's.
	s, err := store.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	r := &results.Run{Experiment: NoisePrefix + "rstat-relock", Family: "rstat", Baseline: "stock", Variants: []string{"stock"}, Status: results.RunRunning, Config: "x: 1"}
	if err := s.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{50, 55, 45, 52, 48, 60, 41, 50} {
		if err := s.AddResult(ctx, &results.Result{RunID: r.ID, Variant: "stock", Repetition: i + 1, Seq: i + 1, Status: results.StatusOK,
			Metrics: []agentproto.Metric{{Name: "rstat_lock_hold_p50_us", Unit: "us", Direction: agentproto.LowerIsBetter, Value: v}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.FinishRun(ctx, r.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	infos, _, err := ListHere(ctx, Request{KVMUnusable: func() string { return "fake: no /dev/kvm" }})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(infos, func(e Info) bool { return e.Name == "rstat-relock" })
	if i < 0 {
		t.Fatal("rstat-relock not listed")
	}
	e := infos[i]
	if len(e.Sees) != 1 || e.Sees[0].MDEPct == nil || e.NoiseRun != r.ID || e.From != fmt.Sprintf("noise run %d", r.ID) {
		t.Fatalf("rstat-relock with a noise run of CV ~0.11: %+v", e)
	}
	if c := e.Sees[0].CV; c < 0.08 || c > 0.14 {
		t.Fatalf("the noise run's CV is %v, not about 0.11", c)
	}
}

package format_test

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/testfile"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/format"
	"github.com/kregress/kregress/results/noise"
	"github.com/kregress/kregress/results/runlist"
)

// showRun is a finished run of two variants, one with patches (one of
// them an absolute path that is gone: the stale-patch warning), phases,
// kernel reports and mixed cell statuses; one variant never ran.
func showRun() (*results.Run, []*results.Result) {
	run := &results.Run{ID: 7, Experiment: "pcpu-execve", Family: "rstat", Baseline: "stock", Variants: []string{"stock", "relock", "never"},
		StartedAt: time.Date(2026, 12, 5, 19, 0, 0, 0, time.UTC), Status: results.RunFailed, Error: "cell 3 crashed\nmore detail",
		Host: results.Host{Hostname: "bench1", CPUModel: "AMD EPYC", Cores: 2, Kregress: "v0.9"}}
	prov := func(patched bool) results.Provenance {
		p := results.Provenance{SourceID: "git:linux@v6.12", GitCommit: "0123456789abcdef", GitDescribe: "v6.12-1-g0123456", KernelKey: "k-abc",
			ConfigSHA256: "ffeeddccbbaa99887766554433221100", Compiler: "gcc 14.2", VCPUs: 2, CPUsPossible: 4, MemoryMB: 2048, Accel: "tcg",
			QEMUVersion: "9.1.0", Cmdline: "console=ttyS0 quiet"}
		if patched {
			p.Dirty, p.Preemption, p.Clock, p.Machine = true, "full", "tsc", "pc"
			p.PatchDetails = []results.PatchInfo{
				{Name: "0001-relock.patch", SHA256: "aaaaaaaaaaaaaaaaaaaaaaaa", Subject: "cgroup: relock per cpu", Author: "A. Dev", MessageID: "20261205.1@example.org"},
				{Name: "/nonexistent/0002-more.patch", SHA256: "bbbbbbbbbbbbbbbbbbbbbbbb"},
			}
			p.ApplyOffsets = []string{"kernel/cgroup/rstat.c: hunk 2 at offset 3"}
		}
		return p
	}
	var rs []*results.Result
	for i := 0; i < 3; i++ {
		b := &results.Result{Variant: "stock", Status: results.StatusOK, Provenance: prov(false)}
		b.Provenance.Phases = []results.Phase{{Name: "kernel", Seconds: 1.5 + float64(i)}, {Name: "agent", Seconds: 4 + float64(i)}}
		c := &results.Result{Variant: "relock", Status: results.StatusOK, Provenance: prov(true)}
		if i == 2 {
			c.Status = results.StatusCrashed
			c.Findings = []results.Finding{{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush"}, {Kind: results.FindingPanic, Title: "Kernel panic"}}
		}
		if i == 1 {
			c.Findings = []results.Finding{{Kind: results.FindingWarning, Title: "WARNING in css_rstat_flush"}}
		}
		rs = append(rs, b, c)
	}
	return run, rs
}

// TestGoldenRunShow pins results show's text: it moves, it does not
// change (KREGRESS_UPDATE_GOLDEN=1 rewrites it).
func TestGoldenRunShow(t *testing.T) {
	local := time.Local
	time.Local = time.UTC
	defer func() { time.Local = local }()
	run, rs := showRun()
	var b bytes.Buffer
	// What runlist.State says of a run that is not running: its status and
	// the first line of its error.
	format.WriteRunShow(&b, run, rs, format.RunState{Status: "failed", Note: "cell 3 crashed"})
	testfile.Golden(t, filepath.Join("testdata", "golden", "runshow.txt"), b.String())
}

// WriteRunView is the run as WriteRunShow prints it, its state from
// the view, then its history line.
func TestWriteRunView(t *testing.T) {
	run, rs := showRun()
	var show, view bytes.Buffer
	format.WriteRunShow(&show, run, rs, format.RunState{Status: "running (process gone)", Note: "pid gone"})
	format.WriteRunView(&view, runlist.RunView{Run: run, Results: rs, Status: "running (process gone)", Note: "pid gone",
		History: []*results.Result{{Seq: 3, Status: results.StatusTimeout}}})
	rest, ok := strings.CutPrefix(view.String(), show.String())
	if !ok || rest != "  history: 1 other attempt(s) kept, not counted (a retried task or a resumed run): cell 3 timeout\n" {
		t.Fatalf("WriteRunView:\n%s\nwant WriteRunShow's text then the history line", view.String())
	}
}

// noiseMetrics are the figures noise's golden files show: one metric with
// what was not measured (NaN within-boot spread, load correlation), one
// with every figure.
func noiseMetrics() []noise.Metric {
	return []noise.Metric{
		{Name: "reads_per_sec", Unit: "reads/s", Boots: 8, Mean: 2400, CV: 0.05, WithinCV: math.NaN(), LoadR: math.NaN(), MDEPct: []float64{math.Inf(1), 12, 7}},
		{Name: "hold_us", Unit: "us", Boots: 8, Mean: 40.5, CV: 0.2, WithinCV: 0.1, LoadR: -0.3, MDEPct: []float64{40, 30, 20}},
	}
}

// TestGoldenNoiseJSON pins noise --json's document.
func TestGoldenNoiseJSON(t *testing.T) {
	ms := noiseMetrics()
	var b bytes.Buffer
	if err := format.WriteNoiseJSON(&b, format.NoiseRun{ID: 4, Experiment: "noise:x", Variant: "stock", Cells: 8}, ms); err != nil {
		t.Fatal(err)
	}
	testfile.Golden(t, filepath.Join("testdata", "golden", "noise.json"), b.String())
}

// TestGoldenNoise pins noise's table (its text was noise.Write's; the
// golden file was written by it before the move).
func TestGoldenNoise(t *testing.T) {
	ms := noiseMetrics()
	var b bytes.Buffer
	format.WriteNoise(&b, ms)
	testfile.Golden(t, filepath.Join("testdata", "golden", "noise.txt"), b.String())
}

// noise's JSON carries what was not measured as null, not as a NaN that
// would make the whole document fail to encode.
func TestNoiseJSONNulls(t *testing.T) {
	ms := []noise.Metric{{Name: "reads_per_sec", Unit: "reads/s", Boots: 8, Mean: 2400, CV: 0.05, WithinCV: math.NaN(), LoadR: math.NaN(), MDEPct: []float64{math.Inf(1), 12, 7}}}
	var b bytes.Buffer
	if err := format.WriteNoiseJSON(&b, format.NoiseRun{ID: 4, Experiment: "noise:x", Variant: "stock", Cells: 8}, ms); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"within_cv": null`, `"5": null`, `"8": 12`, `"cv": 0.05`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("lacks %s:\n%s", want, b.String())
		}
	}
}

package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// overlapBooter boots fake guests safely from several goroutines, and
// records how many were up at once and the cores each was pinned to.
type overlapBooter struct {
	mu       sync.Mutex
	up, peak int
	pins     [][]int
}

func (b *overlapBooter) Boot(ctx context.Context, s vm.Spec) (vm.Machine, error) {
	b.mu.Lock()
	b.up++
	b.peak = max(b.peak, b.up)
	b.pins = append(b.pins, s.HostCPUs)
	b.mu.Unlock()
	m := newFakeMachine()
	m.consolePath = filepath.Join(s.Dir, "console.log")
	os.WriteFile(m.consolePath, []byte("kagent test: ssh listening on :22\n"), 0o644)
	return &countedMachine{fakeMachine: m, b: b}, nil
}

// countedMachine leaves the booter's count when it is shut down, before
// Shutdown returns: counting it down later (when done closes) let the next
// boot start first and count one guest too many.
type countedMachine struct {
	*fakeMachine
	b    *overlapBooter
	once sync.Once
}

func (m *countedMachine) Shutdown(ctx context.Context) error {
	m.once.Do(func() {
		m.b.mu.Lock()
		m.b.up--
		m.b.mu.Unlock()
	})
	return m.fakeMachine.Shutdown(ctx)
}

type readyDialer struct{ doc []byte }

func (d readyDialer) Dial(ctx context.Context, addr string) (remote.Guest, error) {
	return &fakeGuest{run: func(ctx context.Context, cmd string) ([]byte, []byte, error) {
		time.Sleep(100 * time.Millisecond) // the workload
		return d.doc, nil, nil
	}}, nil
}

func TestPinCores(t *testing.T) {
	sets, err := PinCores(2, 3, 8)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{0, 1, 2}, {3, 4, 5}}; !reflect.DeepEqual(sets, want) {
		t.Fatalf("cores %v, want %v", sets, want)
	}
	if _, err := PinCores(2, 2, 3); err == nil {
		t.Fatal("2 guests x 2 vCPUs on 3 cores accepted")
	}
}

// TestLocalParallel runs 3 variants x 3 repetitions two at a time: every
// cell is stored once, two guests were up at once, each pinned to its
// own cores, and the run is complete.
func TestLocalParallel(t *testing.T) {
	dir := t.TempDir()
	store := storetest.SQLiteIn(t, dir)
	b := &overlapBooter{}
	quiet := func(string, ...any) {}
	runner := &CellRunner{Booter: b, Dialer: readyDialer{goodDocument(5)}, BootTimeout: 2 * time.Second, WorkloadTimeout: 2 * time.Second}
	ex := &Executor{Store: store, ArtifactsDir: filepath.Join(dir, "artifacts"), Report: quiet,
		Cells: &Local{Runner: runner, Report: quiet, Parallel: 2, Cores: [][]int{{0}, {1}}}}
	p := &Prepared{Family: &patches.Family{Name: "f", Baseline: "A"}, Variants: []VariantBuild{{Name: "A"}, {Name: "B"}, {Name: "C"}}, AgentCmd: "x"}
	id, err := ex.Execute(context.Background(), &config.Config{Experiment: "e", Repetitions: 3}, p)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := store.Results(context.Background(), id)
	var seqs []int
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("cell %d: %s %s", r.Seq, r.Status, r.Error)
		}
		if len(r.Provenance.HostCPUs) != 1 || r.Provenance.Host == "" {
			t.Fatalf("cell %d: provenance host %q cores %v", r.Seq, r.Provenance.Host, r.Provenance.HostCPUs)
		}
		seqs = append(seqs, r.Seq)
	}
	sort.Ints(seqs)
	if fmt.Sprint(seqs) != "[1 2 3 4 5 6 7 8 9]" {
		t.Fatalf("stored cells %v, want each of 1..9 once", seqs)
	}
	if b.peak != 2 {
		t.Fatalf("at most %d guests up at once, want 2", b.peak)
	}
	used := map[string]int{}
	for _, p := range b.pins {
		used[fmt.Sprint(p)]++
	}
	if len(used) != 2 || used["[0]"] == 0 || used["[1]"] == 0 {
		t.Fatalf("guests pinned to %v, want both [0] and [1]", used)
	}
	run, _ := store.GetRun(context.Background(), id)
	if run.Status != results.RunComplete || run.Error != "" {
		t.Fatalf("run %s %q", run.Status, run.Error)
	}
}

func TestNotOK(t *testing.T) {
	rs := []*results.Result{{Status: results.StatusOK}, {Status: results.StatusCrashed}, {Status: results.StatusInfra}}
	if got, want := NotOK(rs, 4), "cells not ok: 1 crashed, 1 infra_error, 1 missing"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if got := NotOK(rs[:1], 1); got != "" {
		t.Fatalf("all ok: %q", got)
	}
}

func TestCellJobRoundTrip(t *testing.T) {
	j := &CellJob{RunID: 7, Cells: Schedule([]string{"A", "B"}, 2, OrderFixed, 0), AgentCmd: "kagent run rstat",
		Variants: []VariantBuild{{Name: "A", Spec: vm.Spec{Kernel: "/k/bzImage", CPUs: 2}, Provenance: results.Provenance{KernelKey: "k1"}}},
		Settings: CellSettings{BootTimeout: time.Minute, ImageDir: "/img"}, ArtifactsDir: "/a/run-7"}
	path := filepath.Join(t.TempDir(), "job.json")
	if err := j.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("job file mode %v, want 0600", st.Mode().Perm())
	}
	got, err := ReadCellJob(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Fatalf("round trip:\n%+v\nwant\n%+v", got, j)
	}
	if got.CellDir(got.Cells[1]) != "/a/run-7/002-B-r1" {
		t.Fatalf("cell dir %s", got.CellDir(got.Cells[1]))
	}
	res := got.RunCell(context.Background(), &CellRunner{}, 1) // B has no build
	if res.Status != results.StatusInfra || res.RunID != 7 {
		t.Fatalf("cell of a missing variant: %+v", res)
	}
}

func TestTimeLeft(t *testing.T) {
	if got, left := timeLeft(30*time.Second, 3, 10); got != " (3 of 10 cells done, ~1m10s left)" || left != 70*time.Second {
		t.Fatalf("%q, %v", got, left)
	}
	if s, left := timeLeft(time.Minute, 10, 10); s != "" || left != 0 {
		t.Fatal("an estimate with nothing left")
	}
	if s, left := timeLeft(0, 0, 10); s != "" || left != 0 {
		t.Fatal("an estimate with nothing done")
	}
}

// TestLocalLabelsASecondLooksCells: the cells of a second look's job
// (seq 11 and 12 of the run) are counted within that job in progress
// lines ("[1/2]", not "[11/2]").
func TestLocalLabelsASecondLooksCells(t *testing.T) {
	dir := t.TempDir()
	store := storetest.SQLiteIn(t, dir)
	run := &results.Run{Experiment: "e"}
	if err := store.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	report := func(f string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf(f, a...))
	}
	runner := &CellRunner{Booter: &fakeBooter{}, Dialer: readyDialer{goodDocument(5)}, BootTimeout: 2 * time.Second, WorkloadTimeout: 2 * time.Second}
	job := &CellJob{RunID: run.ID, ArtifactsDir: dir, AgentCmd: "x", Variants: []VariantBuild{{Name: "A"}, {Name: "B"}},
		Cells: []Cell{{Seq: 11, Variant: "A", Repetition: 6}, {Seq: 12, Variant: "B", Repetition: 6}}}
	if err := (&Local{Runner: runner, Report: report}).RunCells(context.Background(), job, store); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"[1/2] A rep 6: booting", "[2/2] B rep 6: booting"} {
		if !strings.Contains(all, want) {
			t.Errorf("progress lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "[11/") || strings.Contains(all, "[12/") {
		t.Errorf("progress counts cells by their seq in the run:\n%s", all)
	}
}

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/internal/lines"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/executor/slurm"
	"github.com/kregress/kregress/orchestrator/executor/slurm/slurmtest"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/compare"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/store/pgtest"
)

// TestMain lets this test binary stand in for QEMU in the cells of
// TestSlurmNodes (slurmtest.ServeFakeQEMU).
func TestMain(m *testing.M) {
	slurmtest.ServeFakeQEMU()
	os.Exit(m.Run())
}

// TestSlurmNodes runs runs through a Slurm cluster of two compute nodes
// on this machine (each slurmd in its own network and UTS namespace),
// with the real `kregress cell` in every task writing into a PostgreSQL
// store, and breaks the cluster under them: a node lost mid-run, a node
// drained mid-run, a task over its time limit, and a run interrupted
// while a node is down and then resumed. The cells boot a fake guest
// (this test binary as QEMU, slurmtest.ServeFakeQEMU) that answers SSH
// and whose agent reports one metric after a set time: what is tested is
// where cells run and what becomes of them when the cluster fails, which
// needs no kernel; TestSlurm boots real ones on one node.
func TestSlurmNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm with two nodes in network namespaces and PostgreSQL (run `make test`)")
	}
	t0 := time.Now()
	bin := binDir(t)
	c := slurmtest.StartNodes(t, 2, 1024)
	pg := pgtest.Start(t)
	pg.CreateDB(t, "kregress_nodes")
	// The nodes reach PostgreSQL over its unix socket: its loopback
	// address is not theirs.
	dsn := pg.SocketDSN("kregress_nodes")
	st, err := store.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	shared := t.TempDir()
	slurmtest.FakeImage(t, filepath.Join(shared, "image"))
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := &nodesFixture{c: c, st: st, dsn: dsn, shared: shared, qemu: self, kregress: filepath.Join(bin, "kregress")}
	t.Logf("cluster and store up after %.0f s", time.Since(t0).Seconds())

	phases := []struct {
		name string
		run  func(*testing.T, *nodesFixture)
	}{
		{"spread", checkSpread},
		{"node-lost", checkNodeLost},
		{"drain", checkDrain},
		{"time-limit", checkTimeLimit},
		{"interrupt-resume", checkInterruptResume},
	}
	for _, p := range phases {
		t1 := time.Now()
		p.run(t, f)
		t.Logf("phase %s: %.0f s", p.name, time.Since(t1).Seconds())
		if t.Failed() {
			return
		}
	}
	t.Logf("TestSlurmNodes: %.0f s in all", time.Since(t0).Seconds())
}

// nodesFixture is what TestSlurmNodes' phases share.
type nodesFixture struct {
	c        *slurmtest.Cluster
	st       results.Store
	dsn      string
	shared   string
	qemu     string // the fake QEMU: this test binary
	kregress string // what the tasks run (`kregress cell`)
}

// experiment is a run plan: the variants, a and b, each a fake guest
// whose workload takes its hold time, reps cells of each in A B A B
// order.
type experiment struct {
	holdA, holdB time.Duration
	reps         int
	options      []string // sbatch options (executor.slurm.options)
}

// executor is the pipeline's executor with the Slurm cell executor, as
// `kregress run --executor.kind slurm` makes it, for this cluster.
func (f *nodesFixture) executor(t *testing.T, name string, e experiment) (*pipeline.Executor, *config.Config, *pipeline.Prepared) {
	variant := func(v string, hold time.Duration) pipeline.VariantBuild {
		return pipeline.VariantBuild{Name: v,
			Spec:       vm.Spec{QEMU: f.qemu, Kernel: slurmtest.FakeKernel(f.shared, hold), Initrd: filepath.Join(f.shared, "image", "initramfs.cpio"), CPUs: 1, MemoryMB: 128, Accel: "kvm"},
			Provenance: results.Provenance{KernelKey: "fake-" + v + "-" + hold.String()}}
	}
	p := &pipeline.Prepared{Family: &patches.Family{Name: "same", Baseline: "a"}, AgentCmd: slurmtest.FakeAgentCmd,
		Variants: []pipeline.VariantBuild{variant("a", e.holdA), variant("b", e.holdB)}}
	cfg := &config.Config{Experiment: name, Family: "same", Repetitions: e.reps, Order: string(pipeline.OrderFixed), Seed: 1}
	cells := &slurm.Executor{Sched: slurm.CLI{Env: f.c.Env}, Binary: f.kregress, Options: e.options,
		CPUs: 1, MemoryMB: 256, Poll: 500 * time.Millisecond, StoreSpec: f.dsn,
		Report: func(format string, a ...any) { t.Logf(format, a...) },
		Env:    append([]string{slurmtest.FakeQEMUEnv + "=1"}, f.c.Env...)}
	ex := &pipeline.Executor{Store: f.st, Cells: cells,
		Settings:     pipeline.CellSettings{BootTimeout: time.Minute, WorkloadTimeout: 10 * time.Minute, ImageDir: filepath.Join(f.shared, "image")},
		ArtifactsDir: filepath.Join(f.shared, name), Report: func(format string, a ...any) { t.Logf(format, a...) }}
	return ex, cfg, p
}

// start runs e in the background as experiment name; wait returns the
// run's ID and error.
func (f *nodesFixture) start(t *testing.T, ctx context.Context, name string, e experiment) (wait func() (int64, error)) {
	ex, cfg, p := f.executor(t, name, e)
	type done struct {
		id  int64
		err error
	}
	ch := make(chan done, 1)
	go func() {
		id, err := ex.Execute(ctx, cfg, p)
		ch <- done{id, err}
	}()
	return func() (int64, error) {
		select {
		case d := <-ch:
			return d.id, d.err
		case <-time.After(5 * time.Minute):
			t.Fatalf("run not finished after 5 minutes\n%s", f.c.Logs())
			return 0, nil
		}
	}
}

// cells are a run's results by seq, failing the test when a seq was
// stored twice among them or any of the planned ones is missing.
func (f *nodesFixture) cells(t *testing.T, id int64, planned int) map[int]*results.Result {
	t.Helper()
	rs, err := f.st.Results(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	by := map[int]*results.Result{}
	var rows []string
	for _, r := range rs {
		if by[r.Seq] != nil {
			t.Errorf("run %d: cell %d stored twice", id, r.Seq)
		}
		by[r.Seq] = r
		rows = append(rows, fmt.Sprintf("  cell %d %s r%d: %s on %s (%s) %s", r.Seq, r.Variant, r.Repetition, r.Status, r.Provenance.Host, r.Provenance.Executor, lines.First(r.Error)))
	}
	sort.Strings(rows)
	t.Logf("run %d, where each cell ran:\n%s", id, strings.Join(rows, "\n"))
	for seq := 1; seq <= planned; seq++ {
		if by[seq] == nil {
			t.Errorf("run %d: cell %d of %d has no result", id, seq, planned)
		}
	}
	if len(rs) != planned {
		t.Errorf("run %d: %d cells stored, %d planned", id, len(rs), planned)
	}
	return by
}

// ranOn checks that cell r's recorded host and its Slurm label agree on
// the node, and returns it.
func ranOn(t *testing.T, r *results.Result) string {
	t.Helper()
	host := r.Provenance.Host
	if !strings.HasPrefix(host, "node") || !strings.HasSuffix(r.Provenance.Executor, " on "+host) {
		t.Errorf("cell %d: host %q, executor %q: want a node's name in both", r.Seq, host, r.Provenance.Executor)
	}
	return host
}

// measured: a cell the fake guest ran to its end is ok, with the fake
// agent's metric.
func measured(t *testing.T, r *results.Result) {
	t.Helper()
	if r.Status != results.StatusOK || len(r.Metrics) != 1 || r.Metrics[0].Name != slurmtest.FakeMetric {
		t.Errorf("cell %d: %s (%s) with %d metrics, want ok with %s", r.Seq, r.Status, lines.First(r.Error), len(r.Metrics), slurmtest.FakeMetric)
	}
}

func (f *nodesFixture) complete(t *testing.T, id int64) *results.Run {
	t.Helper()
	run, err := f.st.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != results.RunComplete {
		t.Errorf("run %d is %s (%s), want complete", id, run.Status, run.Error)
	}
	return run
}

// runningOn waits until Slurm runs a task of the newest job on each of
// nodes and returns the array index running on each.
func (f *nodesFixture) runningOn(t *testing.T, nodes ...string) map[string]int {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		out, _ := f.c.Command("squeue", "-h", "-r", "-t", "RUNNING", "-o", "%K %N").Output()
		on := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var idx int
			var node string
			if n, _ := fmt.Sscan(line, &idx, &node); n == 2 {
				on[node] = idx
			}
		}
		all := true
		for _, n := range nodes {
			_, ok := on[n]
			all = all && ok
		}
		if all {
			return on
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no task running on each of %v after 2 minutes\n%s", nodes, f.c.Logs())
	return nil
}

// checkSpread: 2 variants x 2 cells on two one-core nodes run two at a
// time, on both nodes, and each cell's provenance says which.
func checkSpread(t *testing.T, f *nodesFixture) {
	id, err := f.start(t, context.Background(), "nodes-spread", experiment{holdA: 4 * time.Second, holdB: 4 * time.Second, reps: 2})()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, f.c.Logs())
	}
	f.complete(t, id)
	nodes := map[string]int{}
	for _, r := range f.cells(t, id, 4) {
		measured(t, r)
		nodes[ranOn(t, r)]++
	}
	if len(nodes) != 2 {
		t.Errorf("cells ran on %v, want both nodes", nodes)
	}
	// The run's report names both hosts; they are one machine, alike in
	// every way the comparability check looks at, so it warns of nothing.
	rs, err := f.st.Results(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if note := compare.HostsNote(rs); !strings.Contains(note, "cells ran on 2 hosts: node1 (a ") || strings.Contains(note, "WARNING") {
		t.Errorf("hosts note %q: want both nodes named and no warning", note)
	}
	checkVerdictCounts(t, f, id)
}

// checkNodeLost kills node2's slurmd and everything it runs (the cell and
// its QEMU) mid-cell: slurmctld declares the node down and the task
// NODE_FAIL, the executor submits it again once, and it runs on node1.
// Every planned cell is stored once, and all of them measured.
func checkNodeLost(t *testing.T, f *nodesFixture) {
	wait := f.start(t, context.Background(), "nodes-lost", experiment{holdA: 12 * time.Second, holdB: 12 * time.Second, reps: 2})
	on := f.runningOn(t, "node1", "node2")
	time.Sleep(2 * time.Second)
	killed := f.c.StopNode("node2")
	t.Logf("node2 lost mid-cell (array task %d): %d processes killed", on["node2"], killed)
	id, err := wait()
	if err != nil {
		t.Fatalf("run with a node lost: %v\n%s", err, f.c.Logs())
	}
	f.complete(t, id)
	by := f.cells(t, id, 4)
	lost := by[on["node2"]+1] // array index i runs cell seq i+1
	if lost == nil {
		return
	}
	if ranOn(t, lost) != "node1" || !strings.Contains(lost.Provenance.Executor, "attempt 2") {
		t.Errorf("the lost cell %d: %s, want its second attempt, on node1", lost.Seq, lost.Provenance.Executor)
	}
	for _, r := range by {
		measured(t, r)
	}
	checkVerdictCounts(t, f, id)
	f.c.StartSlurmd(t, "node2")
	f.c.WaitNodes(t, "idle", "node1", "node2")
}

// checkDrain drains node2 while it runs a cell: that cell finishes there,
// every later one runs on node1, nothing is lost or retried.
func checkDrain(t *testing.T, f *nodesFixture) {
	wait := f.start(t, context.Background(), "nodes-drain", experiment{holdA: 6 * time.Second, holdB: 6 * time.Second, reps: 2})
	on := f.runningOn(t, "node1", "node2")
	if out, err := f.c.Command("scontrol", "update", "nodename=node2", "state=drain", "reason=kregress-test").CombinedOutput(); err != nil {
		t.Fatalf("drain: %v %s", err, out)
	}
	// What Slurm had given node2 before the drain took effect (it gives
	// a drained node nothing more): every other cell must run on node1.
	out, _ := f.c.Command("squeue", "-h", "-r", "-w", "node2", "-o", "%K").Output()
	before := map[int]bool{}
	for _, field := range strings.Fields(string(out)) {
		var idx int
		if _, err := fmt.Sscan(field, &idx); err == nil {
			before[idx+1] = true // array index i runs cell seq i+1
		}
	}
	id, err := wait()
	if err != nil {
		t.Fatalf("run with a node drained: %v\n%s", err, f.c.Logs())
	}
	f.complete(t, id)
	by := f.cells(t, id, 4)
	for _, r := range by {
		measured(t, r)
		node := ranOn(t, r)
		if r.Seq == on["node2"]+1 && node != "node2" {
			t.Errorf("cell %d, running on node2 when it was drained, ran on %s", r.Seq, node)
		}
		if node == "node2" && !before[r.Seq] {
			t.Errorf("cell %d ran on node2, drained before Slurm gave it the cell (node2 had %v)", r.Seq, before)
		}
		if !strings.Contains(r.Provenance.Executor, "attempt 1") {
			t.Errorf("cell %d retried (%s): a drain loses nothing", r.Seq, r.Provenance.Executor)
		}
	}
	if st := f.c.NodeStates()["node2"]; st != "drained" {
		t.Errorf("node2 is %q after its cell, want drained", st)
	}
	if out, err := f.c.Command("scontrol", "update", "nodename=node2", "state=resume").CombinedOutput(); err != nil {
		t.Fatalf("resume node2: %v %s", err, out)
	}
	f.c.WaitNodes(t, "idle", "node1", "node2")
}

// checkTimeLimit gives the tasks one minute (sbatch --time=1) and b's
// guest three: Slurm signals b's task at its limit, the task stores the
// cell as infra_error saying so, and the run completes with a's cell
// measured and b's not counted as the kernel's.
func checkTimeLimit(t *testing.T, f *nodesFixture) {
	id, err := f.start(t, context.Background(), "nodes-time-limit", experiment{holdA: 3 * time.Second, holdB: 3 * time.Minute, reps: 1, options: []string{"--time=1"}})()
	if err != nil {
		t.Fatalf("run with a time limit: %v\n%s", err, f.c.Logs())
	}
	run := f.complete(t, id)
	by := f.cells(t, id, 2)
	if a := by[1]; a != nil {
		measured(t, a)
	}
	if b := by[2]; b != nil && (b.Status != results.StatusInfra || !strings.Contains(b.Error, "time limit")) {
		t.Errorf("cell 2, over its time limit: %s %q, want infra_error naming the time limit", b.Status, b.Error)
	}
	if run.Error != "cells not ok: 1 infra_error" {
		t.Errorf("run %d's note %q does not count the cell over its limit as infra_error", id, run.Error)
	}
	checkVerdictCounts(t, f, id)
}

// checkInterruptResume loses node2 and interrupts the submitter (its
// Ctrl-C) while cells run: the run is interrupted, the cell signalled on
// node1 is stored as infra_error, the lost and the pending ones have no
// result. Resumed once node2 is back, the run runs exactly the cells
// without a result, on both nodes, and completes with every planned cell
// stored once.
func checkInterruptResume(t *testing.T, f *nodesFixture) {
	e := experiment{holdA: 8 * time.Second, holdB: 8 * time.Second, reps: 3}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := f.start(t, ctx, "nodes-resume", e)
	on := f.runningOn(t, "node1", "node2")
	time.Sleep(time.Second)
	f.c.StopNode("node2")
	cancel()
	id, err := wait()
	if err != context.Canceled {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	run, err := f.st.GetRun(context.Background(), id)
	if err != nil || run.Status != results.RunInterrupted {
		t.Fatalf("run %d after Ctrl-C: %v %v", id, run, err)
	}
	// The cancelled task on node1 stores its cell when it has stopped.
	deadline := time.Now().Add(time.Minute)
	var before []*results.Result
	for time.Now().Before(deadline) {
		before, _ = f.st.Results(context.Background(), id)
		if len(before) > 0 {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	signalled := on["node1"] + 1
	for _, r := range before {
		if r.Seq != signalled || r.Status != results.StatusInfra || !strings.Contains(r.Error, "signalled mid-cell") {
			t.Errorf("after Ctrl-C: cell %d %s %q; want only cell %d, infra_error, signalled mid-cell", r.Seq, r.Status, lines.First(r.Error), signalled)
		}
	}
	f.c.StartSlurmd(t, "node2")
	f.c.WaitNodes(t, "idle", "node1", "node2")
	ex, _, p := f.executor(t, "nodes-resume", e)
	if err := ex.Resume(context.Background(), id, p); err != nil {
		t.Fatalf("resume run %d: %v\n%s", id, err, f.c.Logs())
	}
	run = f.complete(t, id)
	by := f.cells(t, id, 6)
	nodes := map[string]bool{}
	for seq, r := range by {
		if seq == signalled {
			continue
		}
		measured(t, r)
		nodes[ranOn(t, r)] = true
	}
	if len(nodes) != 2 {
		t.Errorf("resumed cells ran on %v, want both nodes", nodes)
	}
	if run.Error != "cells not ok: 1 infra_error" {
		t.Errorf("run %d's note %q: want the signalled cell as infra_error and the rest ok", id, run.Error)
	}
	checkVerdictCounts(t, f, id)
}

// checkVerdictCounts judges run id as its report does and checks that
// each variant's judged cells are its measured ones: an infra_error
// counts neither as the kernel's success nor as its failure.
func checkVerdictCounts(t *testing.T, f *nodesFixture, id int64) {
	t.Helper()
	rs, err := f.st.Results(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	d, err := compare.Compare(rs, "a", compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatalf("judging run %d: %v", id, err)
	}
	for _, v := range d.Variants {
		want := 0
		for _, r := range results.OfVariant(rs, v.Name) {
			if !r.Status.Infra() {
				want++
			}
		}
		if v.Judged() != want || v.OK != want {
			t.Errorf("run %d: variant %s judged on %d cells (%d ok), want its %d measured ones", id, v.Name, v.Judged(), v.OK, want)
		}
	}
}

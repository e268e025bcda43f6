package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

// fakeMachine is a guest whose fate the test scripts, in the manner of
// syzkaller's vmimpl test instance.
type fakeMachine struct {
	mu       sync.Mutex
	done     chan struct{}
	panicked bool
	console  string
	shutdown bool
	// consolePath is where die writes the console, as QEMU would.
	consolePath string
}

func newFakeMachine() *fakeMachine { return &fakeMachine{done: make(chan struct{})} }

func (m *fakeMachine) SSHAddr() string       { return "127.0.0.1:1" }
func (m *fakeMachine) Done() <-chan struct{} { return m.done }
func (m *fakeMachine) Panicked() bool        { m.mu.Lock(); defer m.mu.Unlock(); return m.panicked }
func (m *fakeMachine) ConsoleTail(int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.console
}
func (m *fakeMachine) ConsolePath() string { return m.consolePath }
func (m *fakeMachine) Info() vm.Info {
	return vm.Info{QEMUVersion: "fake", Accel: "tcg", CPUs: 2, MaxCPUs: 2, MemoryMB: 512, Cmdline: "console=ttyS0"}
}
func (m *fakeMachine) Shutdown(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shutdown = true
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	return nil
}

// die makes the guest panic (or just exit) with a console message.
func (m *fakeMachine) die(panicked bool, console string) {
	m.mu.Lock()
	m.panicked = panicked
	m.console = console
	if m.consolePath != "" {
		os.WriteFile(m.consolePath, []byte(console+"\n"), 0o644)
	}
	m.mu.Unlock()
	close(m.done)
}

type fakeBooter struct {
	err     error
	machine *fakeMachine
	onBoot  func(*fakeMachine)
}

func (b *fakeBooter) Boot(ctx context.Context, s vm.Spec) (vm.Machine, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.machine = newFakeMachine()
	if s.Dir != "" {
		// A guest that boots says so on its console, as kagent does.
		b.machine.consolePath = filepath.Join(s.Dir, "console.log")
		os.WriteFile(b.machine.consolePath, []byte("Linux version 6.12\nRun /init as init process\nkagent test: ssh listening on :22\n"), 0o644)
	}
	if b.onBoot != nil {
		b.onBoot(b.machine)
	}
	return b.machine, nil
}

// fakeDialer answers after readyAfter dials (never when < 0) with a guest
// that runs run.
type fakeDialer struct {
	readyAfter int
	dials      int
	run        func(ctx context.Context, cmd string) ([]byte, []byte, error)
	booter     *fakeBooter // if set, a dead machine refuses connections
	dmesg      string      // what the guest's dmesg prints
}

func (d *fakeDialer) Dial(ctx context.Context, addr string) (remote.Guest, error) {
	d.dials++
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if d.booter != nil && d.booter.machine != nil {
		select {
		case <-d.booter.machine.done:
			return nil, errors.New("connection reset")
		default:
		}
	}
	if d.readyAfter < 0 || d.dials <= d.readyAfter {
		return nil, errors.New("connection refused")
	}
	return &fakeGuest{run: d.run, dmesg: d.dmesg}, nil
}

type fakeGuest struct {
	run   func(ctx context.Context, cmd string) ([]byte, []byte, error)
	dmesg string
}

func (g *fakeGuest) Run(ctx context.Context, cmd string) ([]byte, []byte, error) {
	switch {
	case strings.HasPrefix(cmd, "poweroff"):
		return nil, nil, nil
	case cmd == "dmesg":
		return []byte(g.dmesg), nil, nil
	}
	return g.run(ctx, cmd)
}
func (g *fakeGuest) Close() error { return nil }

func goodDocument(reads float64) []byte {
	d := &agentproto.Document{
		Schema: agentproto.Schema, AgentVersion: "test", Workload: "rstat",
		Guest: agentproto.Guest{CPUsOnline: 2, CPUsPossible: 2},
		Metrics: []agentproto.Metric{
			{Name: "reads_per_sec", Unit: "reads/s", Direction: agentproto.HigherIsBetter, Value: reads},
		},
		Irqsoff: &agentproto.Irqsoff{Worst: &agentproto.Section{LatencyUS: 100, StartedAt: "_raw_spin_lock_irq", EndedAt: "cgroup_rstat_flush", Holder: "cgroup_rstat_flush"}},
	}
	var b strings.Builder
	agentproto.Encode(&b, d)
	return []byte(b.String())
}

func okRun(doc []byte) func(context.Context, string) ([]byte, []byte, error) {
	return func(context.Context, string) ([]byte, []byte, error) { return doc, nil, nil }
}

func newRunner(b vm.Booter, d remote.Dialer) *CellRunner {
	return &CellRunner{Booter: b, Dialer: d, BootTimeout: 2 * time.Second, WorkloadTimeout: 2 * time.Second}
}

func TestCellOK(t *testing.T) {
	b := &fakeBooter{}
	r := newRunner(b, &fakeDialer{readyAfter: 2, run: okRun(goodDocument(1234))})
	res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "stock"}, VariantBuild{Name: "stock"}, "kagent run rstat", t.TempDir())
	if res.Status != results.StatusOK {
		t.Fatalf("status %s (%s), want ok", res.Status, res.Error)
	}
	if m, ok := findMetric(res.Metrics, "reads_per_sec"); !ok || m != 1234 {
		t.Fatalf("reads_per_sec = %v, %v", m, ok)
	}
	if res.IrqsoffHolder != "cgroup_rstat_flush" || res.Provenance.Accel != "tcg" || res.Provenance.CPUsOnline != 2 {
		t.Fatalf("holder/provenance not recorded: %+v", res)
	}
	if !b.machine.shutdown {
		t.Fatal("machine not shut down")
	}
	// The host's load around the cell is recorded (where /proc has it).
	if _, err := os.Stat("/proc/loadavg"); err == nil {
		if h := res.Provenance.HostLoad; h == nil || h.Cores != runtime.NumCPU() || h.GuestCPUs != res.Provenance.VCPUs {
			t.Fatalf("host load not recorded: %+v", h)
		}
	}
	if _, err := os.Stat(filepath.Join(res.ArtifactDir, "agent.json")); err != nil {
		t.Fatalf("agent.json artifact: %v", err)
	}
	var names []string
	for _, p := range res.Provenance.Phases {
		names = append(names, p.Name)
	}
	for _, want := range []string{"kernel start", "/init", "ssh listening", "ssh session open", "workload start", "workload end", "poweroff sent", "QEMU exited"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Fatalf("phases %v lack %q", names, want)
		}
	}
}

// A WARNING in dmesg (below the console loglevel) is found, titled and
// kept with an ok cell.
func TestCellFindsKernelReportsInDmesg(t *testing.T) {
	dmesg := "[    9.1] ------------[ cut here ]------------\n[    9.2] WARNING: CPU: 1 PID: 77 at mm/memcontrol.c:1441 memory_stat_show+0x1f/0x60\n[    9.3] ---[ end trace 0000000000000000 ]---\n"
	r := newRunner(&fakeBooter{}, &fakeDialer{readyAfter: 0, run: okRun(goodDocument(1)), dmesg: dmesg})
	dir := t.TempDir()
	res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "warn"}, VariantBuild{Name: "warn"}, "kagent run rstat", dir)
	if res.Status != results.StatusOK || len(res.Findings) != 1 || res.Findings[0].Title != "WARNING in memory_stat_show" {
		t.Fatalf("status %s, findings %+v", res.Status, res.Findings)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "dmesg.txt")); err != nil || string(b) != dmesg {
		t.Fatalf("dmesg.txt artifact: %v", err)
	}
}

func findMetric(ms []agentproto.Metric, name string) (float64, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

func TestCellBootFailure(t *testing.T) {
	r := newRunner(&fakeBooter{err: errors.New("qemu-system-x86_64: -accel kvm: failed")}, &fakeDialer{})
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusInfra || !strings.Contains(res.Error, "failed") {
		t.Fatalf("got %s: %s", res.Status, res.Error)
	}
}

func TestCellPanicWhileBooting(t *testing.T) {
	b := &fakeBooter{onBoot: func(m *fakeMachine) {
		go func() {
			time.Sleep(50 * time.Millisecond)
			m.die(true, "Kernel panic - not syncing: VFS: Unable to mount root fs")
		}()
	}}
	r := newRunner(b, &fakeDialer{readyAfter: -1})
	start := time.Now()
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusCrashed {
		t.Fatalf("status %s, want crashed: %s", res.Status, res.Error)
	}
	if !strings.Contains(res.Error, "Kernel panic") {
		t.Fatalf("error lacks the console tail: %s", res.Error)
	}
	if len(res.Findings) != 1 || res.Findings[0].Kind != results.FindingPanic || res.Findings[0].Title != "kernel panic: VFS: Unable to mount root fs" {
		t.Fatalf("the panic is not a finding: %+v", res.Findings)
	}
	// The guest died: the runner must not sit out the boot timeout.
	if time.Since(start) >= r.BootTimeout {
		t.Fatalf("waited the whole boot timeout for a dead guest")
	}
}

func TestCellSSHTimeout(t *testing.T) {
	b := &fakeBooter{onBoot: func(m *fakeMachine) { m.console = "kregress-init: up" }}
	r := newRunner(b, &fakeDialer{readyAfter: -1})
	r.BootTimeout = 300 * time.Millisecond
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusTimeout {
		t.Fatalf("status %s, want timeout: %s", res.Status, res.Error)
	}
	if !strings.Contains(res.Error, "kregress-init: up") || !b.machine.shutdown {
		t.Fatalf("want console tail and a shut down machine: %s", res.Error)
	}
}

func TestCellBadAgentJSON(t *testing.T) {
	for name, out := range map[string]string{
		"not json":       "kagent: oops",
		"unknown field":  `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"a","unit":"u","direction":"lower","value":1}],"surprise":1}`,
		"wrong schema":   `{"schema":"kregress.agent/v0","workload":"rstat","metrics":[{"name":"a","unit":"u","direction":"lower","value":1}]}`,
		"no metrics":     `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[]}`,
		"bad direction":  `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"a","unit":"u","direction":"up","value":1}]}`,
		"trailing stuff": `{"schema":"kregress.agent/v1","workload":"rstat","metrics":[{"name":"a","unit":"u","direction":"lower","value":1}]} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := newRunner(&fakeBooter{}, &fakeDialer{run: okRun([]byte(out))})
			res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
			if res.Status != results.StatusBadOutput {
				t.Fatalf("status %s, want bad_output: %s", res.Status, res.Error)
			}
			if !strings.Contains(res.Error, "agent document") {
				t.Fatalf("error does not say what was wrong: %s", res.Error)
			}
		})
	}
}

func TestCellAgentFailsAndGuestPanicsMidRun(t *testing.T) {
	r := newRunner(&fakeBooter{}, &fakeDialer{run: func(context.Context, string) ([]byte, []byte, error) {
		return nil, []byte("kagent: rstat: cgroup v2 not mounted"), &remote.ExitError{Code: 1, Stderr: "kagent: rstat: cgroup v2 not mounted"}
	}})
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusAgentFailed || !strings.Contains(res.Error, "cgroup v2") {
		t.Fatalf("got %s: %s", res.Status, res.Error)
	}

	b := &fakeBooter{}
	r = newRunner(b, &fakeDialer{run: func(ctx context.Context, _ string) ([]byte, []byte, error) {
		b.machine.die(true, "BUG: kernel NULL pointer dereference")
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}})
	res = r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusCrashed || !strings.Contains(res.Error, "NULL pointer") {
		t.Fatalf("got %s: %s", res.Status, res.Error)
	}
}

func TestCellWorkloadTimeout(t *testing.T) {
	r := newRunner(&fakeBooter{}, &fakeDialer{run: func(ctx context.Context, _ string) ([]byte, []byte, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}})
	r.WorkloadTimeout = 100 * time.Millisecond
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusTimeout {
		t.Fatalf("got %s: %s", res.Status, res.Error)
	}
}

// TestCellWorkloadTimeoutStretchedByOvercommit: a guest with four vCPUs
// per host core is given four times the workload's bound (a guest run in
// turns is slow, not hung); the same work on a core per vCPU times out,
// and a timeout says how its bound was stretched. The selftests' bound
// stays as it is.
func TestCellWorkloadTimeoutStretchedByOvercommit(t *testing.T) {
	slow := func(ctx context.Context, _ string) ([]byte, []byte, error) {
		select {
		case <-time.After(300 * time.Millisecond):
			return goodDocument(1), nil, nil
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	run := func(cpus int, pin []int) *results.Result {
		r := newRunner(&fakeBooter{}, &fakeDialer{run: slow})
		r.WorkloadTimeout = 150 * time.Millisecond
		r.Pin = pin
		return r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{Spec: vm.Spec{CPUs: cpus}}, "x", t.TempDir())
	}
	if res := run(8, []int{0, 1}); res.Status != results.StatusOK {
		t.Fatalf("8 vCPUs on 2 pinned cores: %s (%s), want ok within 4 x 150ms", res.Status, res.Error)
	}
	if res := run(2, []int{0, 1}); res.Status != results.StatusTimeout {
		t.Fatalf("2 vCPUs on 2 cores: %s (%s), want timeout at 150ms", res.Status, res.Error)
	}
	res := run(16, []int{0, 1})
	if res.Status != results.StatusOK {
		t.Fatalf("16 vCPUs on 2 cores: %s (%s)", res.Status, res.Error)
	}
	// The selftests' bound is not stretched: their programs are bounded
	// inside the guest, and it ends only a session that stopped answering.
	r := newRunner(&fakeBooter{}, &fakeDialer{run: func(ctx context.Context, cmd string) ([]byte, []byte, error) {
		if cmd == "selftests" {
			return slow(ctx, cmd)
		}
		return goodDocument(1), nil, nil
	}})
	r.SelftestCmd, r.SelftestReps, r.SelftestTimeout, r.Pin = "selftests", 1, 150*time.Millisecond, []int{0, 1}
	res = r.Run(context.Background(), Cell{Variant: "v", Repetition: 1}, VariantBuild{Spec: vm.Spec{CPUs: 8}}, "x", t.TempDir())
	if res.Status != results.StatusTimeout || !strings.Contains(res.Error, "selftests did not finish within 150ms\n") {
		t.Fatalf("selftests at 8 vCPUs on 2 cores: %s (%q), want a timeout at the nominal 150ms", res.Status, res.Error)
	}
	never := func(ctx context.Context, _ string) ([]byte, []byte, error) { <-ctx.Done(); return nil, nil, ctx.Err() }
	r = newRunner(&fakeBooter{}, &fakeDialer{run: never})
	r.WorkloadTimeout, r.Pin = 10*time.Millisecond, []int{0}
	res = r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{Spec: vm.Spec{CPUs: 3}}, "x", t.TempDir())
	if res.Status != results.StatusTimeout || !strings.Contains(res.Error, "workload did not finish within 30ms (10ms times 3: 3 vCPUs on 1 host core)") {
		t.Fatalf("got %s: %q", res.Status, res.Error)
	}
}

func TestInterleave(t *testing.T) {
	cells := Interleave([]string{"A", "B"}, 3)
	var got []string
	for _, c := range cells {
		got = append(got, fmt.Sprintf("%s%d", c.Variant, c.Repetition))
	}
	if want := "A1 B1 A2 B2 A3 B3"; strings.Join(got, " ") != want {
		t.Fatalf("order %v, want %s", got, want)
	}
}

// TestExecuteKeepsEverythingOnFailureAndInterrupt runs two experiments into
// one store: the second has a crashing variant and is interrupted; the
// first run's results and the second's completed cells stay.
func TestExecuteKeepsEverythingOnFailureAndInterrupt(t *testing.T) {
	dir := t.TempDir()
	store := storetest.SQLiteIn(t, dir)
	cfg := &config.Config{Experiment: "e", Repetitions: 2}
	p := &Prepared{Family: &patches.Family{Name: "rstat", Baseline: "A"}, Variants: []VariantBuild{{Name: "A"}, {Name: "B"}}, AgentCmd: "x"}
	quiet := func(string, ...any) {}
	ex := &Executor{Store: store, ArtifactsDir: filepath.Join(dir, "artifacts"), Report: quiet,
		Cells: &Local{Runner: newRunner(&fakeBooter{}, &fakeDialer{run: okRun(goodDocument(10))}), Report: quiet}}
	id1, err := ex.Execute(context.Background(), cfg, p)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	b := &fakeBooter{}
	b.onBoot = func(m *fakeMachine) {
		calls++
		if calls == 2 { // B panics while booting
			m.die(true, "Kernel panic - not syncing: test")
		}
		if calls == 3 { // Ctrl-C during the third cell
			cancel()
		}
	}
	ex.Cells = &Local{Runner: newRunner(b, &fakeDialer{run: okRun(goodDocument(20)), booter: b}), Report: quiet}
	id2, err := ex.Execute(ctx, cfg, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run returned %v", err)
	}
	r1, _ := store.Results(context.Background(), id1)
	if len(r1) != 4 {
		t.Fatalf("first run has %d results, want 4", len(r1))
	}
	for _, r := range r1 {
		if r.Status != results.StatusOK || len(r.Metrics) != 1 {
			t.Fatalf("first run result damaged: %+v", r)
		}
	}
	r2, _ := store.Results(context.Background(), id2)
	var statuses []string
	for _, r := range r2 {
		statuses = append(statuses, string(r.Status))
	}
	if got := strings.Join(statuses, ","); got != "ok,crashed,incomplete" {
		t.Fatalf("second run statuses %s, want ok,crashed,incomplete", got)
	}
	run2, _ := store.GetRun(context.Background(), id2)
	if run2.Status != results.RunInterrupted {
		t.Fatalf("second run status %s, want interrupted", run2.Status)
	}
}

// TestResumeRunsOnlyMissingCells interrupts a run in its third cell and
// resumes it: the two stored cells stay, the interrupted one and the
// fourth run, in the run's own order, and the run completes.
func TestResumeRunsOnlyMissingCells(t *testing.T) {
	dir := t.TempDir()
	store := storetest.SQLiteIn(t, dir)
	quiet := func(string, ...any) {}
	cfg := &config.Config{Experiment: "e", Repetitions: 2, Order: "shuffled", Seed: 7}
	p := &Prepared{Family: &patches.Family{Name: "rstat", Baseline: "A"}, Variants: []VariantBuild{{Name: "A"}, {Name: "B"}}, AgentCmd: "x"}
	ctx, cancel := context.WithCancel(context.Background())
	b := &fakeBooter{}
	calls := 0
	b.onBoot = func(m *fakeMachine) {
		if calls++; calls == 3 {
			cancel()
		}
	}
	ex := &Executor{Store: store, ArtifactsDir: filepath.Join(dir, "artifacts"), Report: quiet,
		Cells: &Local{Runner: newRunner(b, &fakeDialer{run: okRun(goodDocument(10)), booter: b}), Report: quiet}}
	id, err := ex.Execute(ctx, cfg, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted: %v", err)
	}
	before, _ := store.Results(context.Background(), id)
	ex.Cells = &Local{Runner: newRunner(&fakeBooter{}, &fakeDialer{run: okRun(goodDocument(20))}), Report: quiet}
	if err := ex.Resume(context.Background(), id, p); err != nil {
		t.Fatal(err)
	}
	after, _ := store.Results(context.Background(), id)
	var got []string
	for _, r := range after {
		got = append(got, fmt.Sprintf("%d%s%d:%s", r.Seq, r.Variant, r.Repetition, r.Status))
	}
	order := Schedule([]string{"A", "B"}, 2, OrderShuffled, 7)
	var want []string
	for _, c := range order {
		want = append(want, fmt.Sprintf("%d%s%d:ok", c.Seq, c.Variant, c.Repetition))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after resume: %s\nwant %s (stored before: %d)", strings.Join(got, " "), strings.Join(want, " "), len(before))
	}
	// The interrupted attempt at the third cell is kept, as history.
	hist, err := store.History(context.Background(), id)
	if c := order[2]; err != nil || len(hist) != 1 || hist[0].Seq != c.Seq || hist[0].Status != results.StatusIncomplete {
		t.Fatalf("history after resume: %+v %v (want cell %d incomplete)", hist, err, c.Seq)
	}
	run, _ := store.GetRun(context.Background(), id)
	if run.Status != results.RunComplete || run.Error != "" {
		t.Fatalf("resumed run: %s %q", run.Status, run.Error)
	}
	if err := ex.Resume(context.Background(), id, p); err == nil || !strings.Contains(err.Error(), "is complete") {
		t.Fatalf("resuming a complete run: %v", err)
	}
	other := &Prepared{Family: p.Family, Variants: []VariantBuild{{Name: "A"}, {Name: "C"}}, AgentCmd: "x"}
	store.FinishRun(context.Background(), id, results.RunInterrupted, "")
	if err := ex.Resume(context.Background(), id, other); err == nil || !strings.Contains(err.Error(), "measured variants A,B") {
		t.Fatalf("resuming with other variants: %v", err)
	}
}

// selftestRun answers the workload with doc and the selftests command
// with selftests (or fails it with selftestErr).
func selftestRun(doc, selftests []byte, selftestErr error, ran *int) func(context.Context, string) ([]byte, []byte, error) {
	return func(_ context.Context, cmd string) ([]byte, []byte, error) {
		if strings.Contains(cmd, "kagent selftests") {
			*ran++
			return selftests, nil, selftestErr
		}
		return doc, nil, nil
	}
}

func TestCellSelftests(t *testing.T) {
	sdoc := []byte(`{"schema":"kregress.selftests/v1","agent_version":"t","binaries":[{"name":"test_core","exit_code":1,"duration_sec":0.2,"output":""}],
		"results":[{"binary":"test_core","name":"a","outcome":"pass"},{"binary":"test_core","name":"b","outcome":"fail"}]}`)
	ran := 0
	r := newRunner(&fakeBooter{}, &fakeDialer{run: selftestRun(goodDocument(10), sdoc, nil, &ran)})
	r.SelftestCmd, r.SelftestReps, r.SelftestTimeout = "/bin/kagent selftests test_core", 1, 2*time.Second
	res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "v"}, VariantBuild{Name: "v"}, "kagent run rstat", t.TempDir())
	if res.Status != results.StatusOK || len(res.Selftests) != 2 || res.Selftests[1].Outcome != "fail" || ran != 1 {
		t.Fatalf("rep 1: %s %v selftests %+v ran %d", res.Status, res.Error, res.Selftests, ran)
	}
	if _, err := os.Stat(filepath.Join(res.ArtifactDir, "selftests.json")); err != nil {
		t.Fatalf("selftests.json artifact: %v", err)
	}
	// Repetition 2 is past selftests.repetitions: no selftests.
	res = r.Run(context.Background(), Cell{Seq: 2, Repetition: 2, Variant: "v"}, VariantBuild{Name: "v"}, "kagent run rstat", t.TempDir())
	if res.Status != results.StatusOK || len(res.Selftests) != 0 || ran != 1 {
		t.Fatalf("rep 2 ran the selftests: %+v (ran %d)", res.Selftests, ran)
	}
}

func TestCellSelftestFailures(t *testing.T) {
	for name, c := range map[string]struct {
		out    []byte
		err    error
		status results.Status
		want   string
	}{
		"binary missing": {nil, &remote.ExitError{Code: 1, Stderr: "kagent: selftest binary missing from the image: test_x (looked in /usr/lib/kselftest/cgroup)"},
			results.StatusAgentFailed, "selftest binary missing from the image: test_x"},
		"garbage output": {[]byte(`{"schema":"kregress.selftests/v1","binaries":[]}`), nil, results.StatusBadOutput, "no binary ran"},
		"unknown outcome": {[]byte(`{"schema":"kregress.selftests/v1","binaries":[{"name":"t","exit_code":0,"duration_sec":0,"output":""}],"results":[{"binary":"t","name":"a","outcome":"maybe"}]}`), nil,
			results.StatusBadOutput, `unknown outcome "maybe"`},
	} {
		ran := 0
		r := newRunner(&fakeBooter{}, &fakeDialer{run: selftestRun(goodDocument(10), c.out, c.err, &ran)})
		r.SelftestCmd, r.SelftestReps, r.SelftestTimeout = "/bin/kagent selftests test_x", 1, 2*time.Second
		res := r.Run(context.Background(), Cell{Seq: 1, Repetition: 1, Variant: "v"}, VariantBuild{Name: "v"}, "kagent run rstat", t.TempDir())
		if res.Status != c.status || !strings.Contains(res.Error, c.want) {
			t.Errorf("%s: %s: %s", name, res.Status, res.Error)
		}
		// The workload's figures stay with the cell.
		if _, ok := findMetric(res.Metrics, "reads_per_sec"); !ok {
			t.Errorf("%s: workload metrics dropped", name)
		}
	}
}

// An agent that exits 1 well within its time is agent_failed even when
// the grace wait for a dying guest (a second) runs past the workload's
// deadline: the deadline is judged when the run returned. Before, a
// loaded host turned such a failure into "did not finish within".
func TestCellAgentFailureInTimeIsNotATimeout(t *testing.T) {
	r := newRunner(&fakeBooter{}, &fakeDialer{run: func(context.Context, string) ([]byte, []byte, error) {
		return nil, []byte("kagent: boom"), &remote.ExitError{Code: 1, Stderr: "kagent: boom"}
	}})
	r.WorkloadTimeout = 300 * time.Millisecond // shorter than the grace wait
	res := r.Run(context.Background(), Cell{Variant: "v"}, VariantBuild{}, "x", t.TempDir())
	if res.Status != results.StatusAgentFailed || !strings.Contains(res.Error, "boom") {
		t.Fatalf("got %s: %s", res.Status, res.Error)
	}
}

func TestSecondaryCPUsHint(t *testing.T) {
	hung := "[    0.563053] smp: Bringing up secondary CPUs ...\n[    0.565802] x86: Booting SMP configuration:\n"
	icount := vm.Spec{ICount: true}
	if h := secondaryCPUsHint(icount, hung); !strings.Contains(h, "vm.clock: host") {
		t.Errorf("a boot stopped at the secondary CPUs under icount: hint %q", h)
	}
	if h := secondaryCPUsHint(vm.Spec{}, hung); h != "" {
		t.Errorf("the host clock: hint %q, want none", h)
	}
	if h := secondaryCPUsHint(icount, hung+"[    0.9] smp: Brought up 1 node, 2 CPUs\n"); h != "" {
		t.Errorf("the CPUs came up: hint %q, want none", h)
	}
}

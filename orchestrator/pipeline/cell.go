package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/logread"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/internal/safetext"
	"github.com/kregress/kregress/orchestrator/hostload"
	"github.com/kregress/kregress/orchestrator/kreport"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
)

// consoleTailLines is how much console a failed cell keeps in its error.
const consoleTailLines = 40

// CellRunner runs one cell: boot, wait for SSH, run the workload, parse,
// power off. Every outcome is a Result; only a failure to store is an error.
type CellRunner struct {
	Booter      vm.Booter
	Dialer      remote.Dialer
	BootTimeout time.Duration
	// WorkloadTimeout bounds the agent command.
	WorkloadTimeout time.Duration
	// SelftestCmd, when set, runs after the workload in the first
	// SelftestReps repetitions of each variant, bounded by SelftestTimeout.
	SelftestCmd     string
	SelftestReps    int
	SelftestTimeout time.Duration
	Progress        progress.Reporter
	// Pin, when set, pins the guest to these host cores.
	Pin []int
	// Executor says for provenance what ran the cell ("local", "slurm
	// job 12_3 attempt 1"); empty: local.
	Executor string
}

// VariantBuild is what a cell needs of its variant's kernel.
type VariantBuild struct {
	Name       string
	Spec       vm.Spec // kernel, initrd, shape; Dir is set per cell
	Provenance results.Provenance
}

func (c *CellRunner) progress(format string, args ...any) {
	if c.Progress != nil {
		// Arguments may quote the guest (a failing dmesg's stderr).
		c.Progress("%s", safetext.Text(fmt.Sprintf(format, args...)))
	}
}

// Run executes cell with vb and returns its result (never nil).
func (c *CellRunner) Run(ctx context.Context, cell Cell, vb VariantBuild, agentCmd, dir string) *results.Result {
	res := &results.Result{
		Variant: cell.Variant, Repetition: cell.Repetition, Seq: cell.Seq,
		StartedAt: time.Now().UTC(), Provenance: vb.Provenance, ArtifactDir: dir,
	}
	defer func() { res.FinishedAt = time.Now().UTC() }()
	fail := func(status results.Status, err error, m vm.Machine) *results.Result {
		res.Status = status
		msg := err.Error()
		if m != nil {
			msg += "\n--- console tail ---\n" + m.ConsoleTail(consoleTailLines)
		}
		// The message quotes the guest (its console, kagent's stderr):
		// escaped and bounded before it is stored or shown.
		res.Error = errorText(msg)
		os.WriteFile(filepath.Join(dir, "error.txt"), []byte(res.Error+"\n"), 0o644)
		return res
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(results.StatusInfra, err, nil)
	}
	// The host that runs the cell, not the one that planned the run:
	// with a cluster executor these differ.
	res.Provenance.HostLoad1 = hostLoad1()
	host := HostInfo()
	// The load the cell ran under, from before its guest booted to after
	// it is gone (this defer runs after the guest's shutdown): a selftest
	// that fails once on a loaded host is suspect, not yet a regression.
	if start, err := hostload.Read("/proc"); err == nil {
		defer func() {
			if end, err := hostload.Read("/proc"); err == nil {
				res.Provenance.HostLoad = hostload.Between(start, end, host.Cores, res.Provenance.VCPUs)
			}
		}()
	}
	res.Provenance.Host, res.Provenance.HostCPU, res.Provenance.HostCores = host.Hostname, host.CPUModel, host.Cores
	res.Provenance.Executor = c.Executor
	if res.Provenance.Executor == "" {
		res.Provenance.Executor = "local"
	}
	res.Provenance.HostCPUs = c.Pin
	spec := vb.Spec
	spec.Dir = dir
	spec.HostCPUs = c.Pin
	t0 := time.Now()
	clock := &phaseClock{start: t0}
	m, err := c.Booter.Boot(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return fail(results.StatusIncomplete, err, nil)
		}
		return fail(results.StatusInfra, fmt.Errorf("boot: %w", err), nil)
	}
	// Whatever happens, the guest is gone when this cell ends; then (the
	// defers run in reverse) its console is complete and is searched for
	// the kernel's reports, whatever the cell's status.
	clock.now("QMP connected")
	bootCtx, cancel := context.WithTimeout(ctx, c.BootTimeout)
	defer cancel()
	console := watchConsole(bootCtx, m.ConsolePath())
	defer func() {
		clock.now("QEMU exited")
		clock.fromConsole(console)
		sort.SliceStable(clock.phases, func(i, j int) bool { return clock.phases[i].Seconds < clock.phases[j].Seconds })
		res.Provenance.Phases = clock.phases
		c.findReports(res, m, dir)
	}()
	defer m.Shutdown(context.Background())
	info := m.Info()
	res.Provenance.QEMUVersion = info.QEMUVersion
	res.Provenance.Accel = info.Accel
	res.Provenance.Clock = info.Clock
	res.Provenance.Machine = info.Machine
	res.Provenance.VCPUs, res.Provenance.MaxVCPUs = info.CPUs, info.MaxCPUs
	res.Provenance.MemoryMB = info.MemoryMB
	res.Provenance.Cmdline = info.Cmdline

	g, err := WaitAgent(bootCtx, c.Dialer, m, console)
	cancel()
	if err != nil {
		return c.classify(ctx, m, fmt.Errorf("waiting for SSH: %w", err), results.StatusTimeout, fail)
	}
	defer g.Close()
	clock.now("ssh session open")
	c.progress("ssh ready after %.1fs", time.Since(t0).Seconds())

	clock.now("workload start")
	stdout, stderr, failed := c.guestRun(ctx, m, g, agentCmd, c.WorkloadTimeout, "workload", fail)
	clock.now("workload end")
	os.WriteFile(filepath.Join(dir, "agent.stderr"), stderr, 0o644)
	if failed != nil {
		return failed
	}
	os.WriteFile(filepath.Join(dir, "agent.json"), stdout, 0o644)
	doc, err := agentproto.Decode(stdout)
	if err != nil {
		return fail(results.StatusBadOutput, fmt.Errorf("%w (raw output kept in %s)", err, filepath.Join(dir, "agent.json")), nil)
	}
	res.Status = results.StatusOK
	// The stored document is the one decoded and checked (its strings
	// escaped), not the guest's bytes: whatever reads it back later
	// (compare, the HTML report) gets no raw control characters.
	var stored bytes.Buffer
	if err := agentproto.Encode(&stored, doc); err != nil {
		return fail(results.StatusBadOutput, fmt.Errorf("agent document: re-encoding: %w", err), nil)
	}
	res.Document = stored.Bytes()
	res.Metrics = doc.Metrics
	res.Provenance.CPUsOnline = doc.Guest.CPUsOnline
	res.Provenance.CPUsPossible = doc.Guest.CPUsPossible
	res.Provenance.GuestKernel = doc.Guest.KernelRelease + " " + doc.Guest.KernelVersion
	res.Provenance.AgentVersion = doc.AgentVersion
	if doc.Irqsoff != nil && doc.Irqsoff.Worst != nil {
		res.IrqsoffWorstUS = float64(doc.Irqsoff.Worst.LatencyUS)
		res.IrqsoffHolder = doc.Irqsoff.Worst.Holder
		os.WriteFile(filepath.Join(dir, "irqsoff.txt"), []byte(doc.Irqsoff.WorstTrace), 0o644)
	}
	if len(doc.Warnings) > 0 {
		res.Error = errorText("warnings: " + strings.Join(doc.Warnings, "; "))
	}
	if c.SelftestCmd != "" && cell.Repetition <= c.SelftestReps {
		c.progress("running the cgroup selftests")
		stdout, stderr, failed := c.guestRun(ctx, m, g, c.SelftestCmd, c.SelftestTimeout, "selftests", fail)
		clock.now("selftests end")
		os.WriteFile(filepath.Join(dir, "selftests.stderr"), stderr, 0o644)
		if failed != nil {
			// The workload's figures stay with the cell; its status says
			// the selftests did not finish (a crash there is a finding).
			return failed
		}
		os.WriteFile(filepath.Join(dir, "selftests.json"), stdout, 0o644)
		sdoc, err := agentproto.DecodeSelftests(stdout)
		if err != nil {
			return fail(results.StatusBadOutput, fmt.Errorf("%w (raw output kept in %s)", err, filepath.Join(dir, "selftests.json")), nil)
		}
		res.Selftests = sdoc.Results
	}
	// The kernel's log, whole: the console shows only what passed the
	// console loglevel (workloads lower it), dmesg has every report.
	dmesgCtx, dmesgCancel := context.WithTimeout(ctx, dmesgTimeout)
	if out, _, err := g.Run(dmesgCtx, "dmesg"); err == nil {
		os.WriteFile(filepath.Join(dir, "dmesg.txt"), out, 0o644)
	} else {
		c.progress("dmesg: %v (kernel reports from the console only)", err)
	}
	dmesgCancel()
	// Power off from inside: the guest's ACPI poweroff ends QEMU cleanly.
	clock.now("dmesg collected")
	offCtx, offCancel := context.WithTimeout(context.Background(), 5*time.Second)
	g.Run(offCtx, "poweroff -f")
	offCancel()
	clock.now("poweroff sent")
	return res
}

// dmesgTimeout bounds reading the guest's kernel log.
const dmesgTimeout = 20 * time.Second

// findReports sets res.Findings from the cell's console and dmesg.
func (c *CellRunner) findReports(res *results.Result, m vm.Machine, dir string) {
	var sets [][]results.Finding
	for _, path := range []string{m.ConsolePath(), filepath.Join(dir, "dmesg.txt")} {
		if path == "" {
			continue
		}
		if log, err := logread.HeadTail(path, maxLogRead); err == nil {
			sets = append(sets, kreport.Parse(log))
		}
	}
	res.Findings = kreport.Merge(sets...)
	for _, f := range res.Findings {
		c.progress("kernel report: %s (%d×)", f.Title, f.Count)
	}
}

// guestRun runs cmd in the guest within timeout and returns its output;
// when it fails, the cell's failed result (crashed, timeout, agent_failed,
// infra_error, incomplete) comes back instead. what names the step.
func (c *CellRunner) guestRun(ctx context.Context, m vm.Machine, g remote.Guest, cmd string, timeout time.Duration, what string, fail func(results.Status, error, vm.Machine) *results.Result) (stdout, stderr []byte, failed *results.Result) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type out struct {
		stdout, stderr []byte
		err            error
	}
	done := make(chan out, 1)
	go func() {
		so, se, err := g.Run(runCtx, cmd)
		done <- out{so, se, err}
	}()
	var o out
	select {
	case o = <-done:
		// A guest that floods its output is cut off by remote at the
		// stream's cap: its figures cannot be trusted, and it did not
		// crash or hang.
		var le *remote.OutputLimitError
		if errors.As(o.err, &le) {
			return nil, o.stderr, fail(results.StatusBadOutput, fmt.Errorf("%s: %w", what, le), nil)
		}
	case <-m.Done():
		cancel()
		<-done
		// Not a boot failure: the guest was up. Without a panic, QEMU
		// died under us (killed, OOM on the host), or the guest's init
		// powered off because kagent's SSH server died (its console
		// line says so): infrastructure either way.
		return nil, nil, c.classify(ctx, m, fmt.Errorf("QEMU exited during the %s (killed, or the guest powered off: see the console tail)", what), results.StatusInfra, fail)
	}
	if o.err == nil {
		return o.stdout, o.stderr, nil
	}
	// A dropped session usually means the guest went away: give QEMU a
	// moment to exit (and pvpanic to report) before judging.
	select {
	case <-m.Done():
	case <-time.After(time.Second):
	}
	if m.Panicked() {
		return nil, o.stderr, fail(results.StatusCrashed, fmt.Errorf("guest kernel panicked during the %s", what), m)
	}
	select {
	case <-m.Done():
		if ctx.Err() == nil {
			return nil, o.stderr, fail(results.StatusInfra, fmt.Errorf("QEMU exited during the %s (killed, or the guest powered off: see the console tail): %v", what, o.err), m)
		}
	default:
	}
	if ctx.Err() != nil {
		return nil, o.stderr, fail(results.StatusIncomplete, ctx.Err(), m)
	}
	if runCtx.Err() != nil {
		return nil, o.stderr, fail(results.StatusTimeout, fmt.Errorf("%s did not finish within %s", what, timeout), m)
	}
	var ee *remote.ExitError
	if errors.As(o.err, &ee) {
		return nil, o.stderr, fail(results.StatusAgentFailed, fmt.Errorf("kagent exited %d: %s", ee.Code, strings.TrimSpace(ee.Stderr)), nil)
	}
	return nil, o.stderr, fail(results.StatusInfra, fmt.Errorf("ssh: %w", o.err), m)
}

// classify turns a guest that stopped answering into crashed (it
// panicked), boot_failed (it died) or the given status (it hung).
func (c *CellRunner) classify(ctx context.Context, m vm.Machine, err error, hung results.Status, fail func(results.Status, error, vm.Machine) *results.Result) *results.Result {
	// Give QEMU a moment to deliver GUEST_PANICKED / exit after a panic.
	select {
	case <-m.Done():
	case <-time.After(time.Second):
	}
	switch {
	case m.Panicked():
		return fail(results.StatusCrashed, fmt.Errorf("guest kernel panicked: %w", err), m)
	case ctx.Err() != nil:
		return fail(results.StatusIncomplete, ctx.Err(), m)
	}
	select {
	case <-m.Done():
		if hung == results.StatusInfra {
			return fail(results.StatusInfra, err, m)
		}
		return fail(results.StatusBootFailed, fmt.Errorf("guest exited: %w", err), m)
	default:
		return fail(hung, err, m)
	}
}

// hostLoad1 is /proc/loadavg's first field (0 when unreadable).
func hostLoad1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var l float64
	fmt.Sscan(string(b), &l)
	return l
}

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
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/hostload"
	"github.com/kregress/kregress/orchestrator/oops"
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
	// WorkloadTimeout bounds the agent command on a guest with a core
	// per vCPU; a guest with more vCPUs than the host cores it may use
	// gets it stretched (vm.Overcommit).
	WorkloadTimeout time.Duration
	// SelftestCmd, when set, runs after the workload in the first
	// SelftestReps repetitions of each variant, bounded by SelftestTimeout.
	SelftestCmd     string
	SelftestReps    int
	SelftestTimeout time.Duration
	Progress        progress.Reporter
	// Pin, when set, pins the guest to these host cores.
	Pin []int
	// Executor says for provenance what ran the cell: its executor kind
	// first, then which task of it ("<kind> job 12_3 attempt 1"); empty:
	// the local executor.
	Executor string
}

// VariantBuild is what a cell needs of its variant's kernel.
type VariantBuild struct {
	Name       string
	Spec       vm.Spec // kernel, initrd, shape; Dir is set per cell
	Provenance results.Provenance
}

// kernelReportLine starts the progress line of each kernel report a
// cell found: a line that stays on a terminal (see RunCells).
const kernelReportLine = "kernel report: "

func (c *CellRunner) progress(format string, args ...any) {
	if c.Progress != nil {
		// Arguments may quote the guest (a failing dmesg's stderr).
		c.Progress("%s", safetext.Text(fmt.Sprintf(format, args...)))
	}
}

// failCell ends a cell with status and err (and m's console tail, when m
// is not nil) and returns its result.
type failCell func(status results.Status, err error, m vm.Machine) *results.Result

// failer is the failCell of the cell whose result is res: it keeps the
// error in dir/error.txt too.
func failer(res *results.Result, dir string) failCell {
	return func(status results.Status, err error, m vm.Machine) *results.Result {
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
}

// Run executes cell with vb and returns its result (never nil).
func (c *CellRunner) Run(ctx context.Context, cell Cell, vb VariantBuild, agentCmd, dir string) *results.Result {
	res := &results.Result{
		Variant: cell.Variant, Repetition: cell.Repetition, Seq: cell.Seq,
		StartedAt: time.Now().UTC(), Provenance: vb.Provenance, ArtifactDir: dir,
	}
	defer func() { res.FinishedAt = time.Now().UTC() }()
	fail := failer(res, dir)
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
	c.hostProvenance(&res.Provenance, host)
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
	machineProvenance(&res.Provenance, m.Info())

	g, err := WaitAgent(bootCtx, c.Dialer, m, console)
	cancel()
	if err != nil {
		return c.classify(ctx, m, fmt.Errorf("waiting for SSH: %w%s", err, secondaryCPUsHint(spec, m.ConsoleTail(consoleTailLines))), results.StatusTimeout, fail)
	}
	defer g.Close()
	clock.now("ssh session open")
	c.progress("ssh ready after %.1fs", time.Since(t0).Seconds())

	lc := &liveCell{m: m, g: g, dir: dir, res: res, clock: clock, fail: fail, overcommit: c.overcommit(spec, host)}
	if failed := c.runWorkload(ctx, lc, agentCmd); failed != nil {
		return failed
	}
	if c.SelftestCmd != "" && cell.Repetition <= c.SelftestReps {
		if failed := c.runSelftests(ctx, lc); failed != nil {
			// The workload's figures stay with the cell; its status says
			// the selftests did not finish (a crash there is a finding).
			return failed
		}
	}
	c.collectDmesg(ctx, lc)
	// Power off from inside: the guest's ACPI poweroff ends QEMU cleanly.
	clock.now("dmesg collected")
	offCtx, offCancel := context.WithTimeout(context.Background(), 5*time.Second)
	g.Run(offCtx, "poweroff -f")
	offCancel()
	clock.now("poweroff sent")
	return res
}

// hostProvenance records the host that runs the cell and how: its name,
// CPU, cores, the executor and the cores the guest is pinned to.
func (c *CellRunner) hostProvenance(p *results.Provenance, host results.Host) {
	p.Host, p.HostCPU, p.HostCores = host.Hostname, host.CPUModel, host.Cores
	p.Executor = c.Executor
	if p.Executor == "" {
		p.Executor = config.LocalExecutor
	}
	p.HostCPUs = c.Pin
}

// machineProvenance records the virtual machine QEMU reports it started.
func machineProvenance(p *results.Provenance, info vm.Info) {
	p.QEMUVersion = info.QEMUVersion
	p.Accel = info.Accel
	p.Clock = info.Clock
	p.Machine = info.Machine
	p.VCPUs, p.MaxVCPUs = info.CPUs, info.MaxCPUs
	p.MemoryMB = info.MemoryMB
	p.Cmdline = info.Cmdline
}

// liveCell is a cell whose guest is up and whose agent answers: what the
// steps after the boot work with.
type liveCell struct {
	m     vm.Machine
	g     remote.Guest
	dir   string
	res   *results.Result
	clock *phaseClock
	fail  failCell
	// overcommit stretches the workload's bound.
	overcommit vm.Overcommit
}

// overcommit is how the guest of spec shares the cores of host (or the
// cores it is pinned to). Under the icount clock one host thread runs
// every vCPU in turn, so the guest has one core whatever the host has.
func (c *CellRunner) overcommit(spec vm.Spec, host results.Host) vm.Overcommit {
	cores := host.Cores
	if len(c.Pin) > 0 {
		cores = len(c.Pin)
	}
	if spec.Clock() != vm.HostClock {
		cores = 1
	}
	return vm.Overcommit{VCPUs: spec.CPUs, HostCores: cores}
}

// runWorkload runs the agent command and stores its document in the
// result; a failed result comes back when it did not give one.
func (c *CellRunner) runWorkload(ctx context.Context, lc *liveCell, agentCmd string) (failed *results.Result) {
	lc.clock.now("workload start")
	stdout, failed := c.runKept(ctx, lc, agentCmd, stepBound{c.WorkloadTimeout, lc.overcommit}, "workload", "agent")
	if failed != nil {
		return failed
	}
	doc, err := agentproto.Decode(stdout)
	if err != nil {
		return lc.badOutput(err, "agent.json")
	}
	res := lc.res
	res.Status = results.StatusOK
	// The stored document is the one decoded and checked (its strings
	// escaped), not the guest's bytes: whatever reads it back later
	// (compare, the HTML report) gets no raw control characters.
	var stored bytes.Buffer
	if err := agentproto.Encode(&stored, doc); err != nil {
		return lc.fail(results.StatusBadOutput, fmt.Errorf("agent document: re-encoding: %w", err), nil)
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
		os.WriteFile(filepath.Join(lc.dir, "irqsoff.txt"), []byte(doc.Irqsoff.WorstTrace), 0o644)
	}
	if len(doc.Warnings) > 0 {
		res.Error = errorText("warnings: " + strings.Join(doc.Warnings, "; "))
	}
	return nil
}

// runSelftests runs the selftest command after the workload and stores
// its results; a failed result comes back when it did not give them.
func (c *CellRunner) runSelftests(ctx context.Context, lc *liveCell) (failed *results.Result) {
	c.progress("running the selftests")
	// Not stretched: each program is bounded inside the guest, and this
	// bound, which already allows every program its whole timeout, ends
	// only a session whose agent stopped answering.
	stdout, failed := c.runKept(ctx, lc, c.SelftestCmd, stepBound{nominal: c.SelftestTimeout}, "selftests", "selftests")
	if failed != nil {
		return failed
	}
	sdoc, err := agentproto.DecodeSelftests(stdout)
	if err != nil {
		return lc.badOutput(err, "selftests.json")
	}
	lc.res.Selftests = sdoc.Results
	return nil
}

// runKept runs cmd in the guest (guestRun, what naming the step), marks
// the phase "<what> end", and keeps its stderr in base.stderr and, when it
// finished, its stdout in base.json in the cell's directory.
func (c *CellRunner) runKept(ctx context.Context, lc *liveCell, cmd string, bound stepBound, what, base string) (stdout []byte, failed *results.Result) {
	stdout, stderr, failed := c.guestRun(ctx, lc.m, lc.g, cmd, bound, what, lc.fail)
	lc.clock.now(what + " end")
	os.WriteFile(filepath.Join(lc.dir, base+".stderr"), stderr, 0o644)
	if failed != nil {
		return nil, failed
	}
	os.WriteFile(filepath.Join(lc.dir, base+".json"), stdout, 0o644)
	return stdout, nil
}

// badOutput fails the cell whose output, kept in file, did not decode.
func (lc *liveCell) badOutput(err error, file string) *results.Result {
	return lc.fail(results.StatusBadOutput, fmt.Errorf("%w (raw output kept in %s)", err, filepath.Join(lc.dir, file)), nil)
}

// collectDmesg keeps the kernel's log, whole: the console shows only what
// passed the console loglevel (workloads lower it), dmesg has every
// report.
func (c *CellRunner) collectDmesg(ctx context.Context, lc *liveCell) {
	dmesgCtx, dmesgCancel := context.WithTimeout(ctx, dmesgTimeout)
	defer dmesgCancel()
	if out, _, err := lc.g.Run(dmesgCtx, "dmesg"); err == nil {
		os.WriteFile(filepath.Join(lc.dir, "dmesg.txt"), out, 0o644)
	} else {
		c.progress("dmesg: %v (kernel reports from the console only)", err)
	}
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
			sets = append(sets, oops.Parse(log))
		}
	}
	res.Findings = oops.Merge(sets...)
	for _, f := range res.Findings {
		c.progress(kernelReportLine+"%s (%d×)", f.Title, f.Count)
	}
}

// stepBound is how long a step in the guest may take: its nominal bound
// (for a guest with a core per vCPU) stretched by the guest's overcommit,
// so that a many-vCPU guest on a small host is not called hung for being
// run in turns.
type stepBound struct {
	nominal    time.Duration
	overcommit vm.Overcommit
}

// Duration is the stretched bound.
func (b stepBound) Duration() time.Duration { return b.overcommit.Stretch(b.nominal) }

// String is the bound as an error quotes it, with how it was stretched.
func (b stepBound) String() string {
	if why := b.overcommit.Explain(b.nominal); why != "" {
		return fmt.Sprintf("%s (%s)", b.Duration(), why)
	}
	return b.Duration().String()
}

// guestRun runs cmd in the guest within bound and returns its output;
// when it fails, the cell's failed result (crashed, timeout, agent_failed,
// infra_error, incomplete) comes back instead. what names the step.
func (c *CellRunner) guestRun(ctx context.Context, m vm.Machine, g remote.Guest, cmd string, bound stepBound, what string, fail failCell) (stdout, stderr []byte, failed *results.Result) {
	runCtx, cancel := context.WithTimeout(ctx, bound.Duration())
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
	// Whether the run outlived its time is read when it returns: the
	// grace wait below for a dying guest may pass the deadline, and an
	// agent that failed in time must not read as a timeout (under host
	// load the grace wait alone can outlast a short workload's deadline).
	var timedOut bool
	select {
	case o = <-done:
		timedOut = runCtx.Err() != nil
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
	if timedOut {
		return nil, o.stderr, fail(results.StatusTimeout, fmt.Errorf("%s did not finish within %s", what, bound), m)
	}
	var ee *remote.ExitError
	if errors.As(o.err, &ee) {
		return nil, o.stderr, fail(results.StatusAgentFailed, fmt.Errorf("kagent exited %d: %s", ee.Code, strings.TrimSpace(ee.Stderr)), nil)
	}
	return nil, o.stderr, fail(results.StatusInfra, fmt.Errorf("ssh: %w", o.err), m)
}

// classify turns a guest that stopped answering into crashed (it
// panicked), boot_failed (it died) or the given status (it hung).
func (c *CellRunner) classify(ctx context.Context, m vm.Machine, err error, hung results.Status, fail failCell) *results.Result {
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

// secondaryCPUsHint names the one boot hang known to depend on the
// guest clock: a kernel whose console stops while it brings up its
// secondary CPUs under icount (Linux 6.1 under QEMU 7.2 does, every
// boot; 6.12 and the same 6.1 without icount do not).
func secondaryCPUsHint(spec vm.Spec, tail string) string {
	if !spec.ICount || !strings.Contains(tail, "Booting SMP configuration") || strings.Contains(tail, "smp: Brought up") {
		return ""
	}
	return "; the console stops while the kernel brings up its secondary CPUs under the icount clock, where some kernels (Linux 6.1) never finish: set vm.clock: host"
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

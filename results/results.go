// Package results holds what kregress stores about runs: a run is one
// invocation of an experiment; a result is one boot of one variant (a
// cell), with its status, metrics and provenance. Stores implement Store;
// SQLite (results/store) is the default.
package results

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/internal/safetext"
)

// RunStatus is where a run (or a stored bisect) is in its life.
type RunStatus string

// Run statuses.
const (
	RunRunning     RunStatus = "running"
	RunComplete    RunStatus = "complete"
	RunInterrupted RunStatus = "interrupted" // Ctrl-C or a signal: completed cells are kept
	RunFailed      RunStatus = "failed"      // stopped by an error before all cells ran
)

// RunStatuses lists every run status, for usage errors and flag checks.
var RunStatuses = []RunStatus{RunRunning, RunComplete, RunInterrupted, RunFailed}

// Valid says whether s is one of RunStatuses.
func (s RunStatus) Valid() bool {
	for _, v := range RunStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// Resumable says whether a run in this status may be reopened to finish
// its missing cells: it stopped before all ran (interrupted or failed).
func (s RunStatus) Resumable() bool { return s == RunInterrupted || s == RunFailed }

// Status is a result's (a cell's) status. Every cell that started is
// stored with one of the constants below: a crash or a hang is a result,
// never a gap. Each status is exactly one of OK, KernelFailure or Infra;
// that classification is made here and nowhere else.
type Status string

// Result (cell) statuses.
const (
	StatusOK          Status = "ok"
	StatusCrashed     Status = "crashed"      // the guest kernel panicked
	StatusTimeout     Status = "timeout"      // SSH never answered, or the workload overran
	StatusBootFailed  Status = "boot_failed"  // QEMU or the guest died before SSH, without a panic
	StatusAgentFailed Status = "agent_failed" // kagent exited non-zero
	StatusBadOutput   Status = "bad_output"   // kagent's document did not parse
	StatusInfra       Status = "infra_error"  // the host side failed (QEMU missing, ...)
	StatusIncomplete  Status = "incomplete"   // interrupted while running
)

// Statuses lists every result status, the measured one first, then the
// kernel's failures, then the harness's.
var Statuses = []Status{StatusOK, StatusCrashed, StatusTimeout, StatusBootFailed, StatusAgentFailed, StatusBadOutput, StatusInfra, StatusIncomplete}

// KernelFailures lists the statuses that count against the kernel
// (KernelFailure), in Statuses' order.
func KernelFailures() []Status {
	var out []Status
	for _, s := range Statuses {
		if s.KernelFailure() {
			out = append(out, s)
		}
	}
	return out
}

// StatusNames are ss as text, for lists in help and headers.
func StatusNames(ss []Status) []string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = string(s)
	}
	return names
}

// OK says the cell was measured.
func (s Status) OK() bool { return s == StatusOK }

// KernelFailure says whether the status counts against the kernel: it
// crashed, hung, did not boot, or its workload failed or printed garbage.
// infra_error and incomplete are the host's or the user's, not the
// kernel's; a status this build does not know (a newer writer's) is
// neither, so it is never blamed on a kernel.
func (s Status) KernelFailure() bool {
	switch s {
	case StatusCrashed, StatusTimeout, StatusBootFailed, StatusAgentFailed, StatusBadOutput:
		return true
	}
	return false
}

// Infra reports whether the status says the harness did not finish
// measuring the cell (infra_error, incomplete), rather than how the kernel
// behaved. When a cell is stored twice (a retried task, a resume), the
// store keeps the first kernel outcome as the cell's result and lets a
// later result replace only a harness status; the other row is kept as
// history (see results/store.Store.AddResult).
func (s Status) Infra() bool { return s == StatusInfra || s == StatusIncomplete }

// Run is one invocation of an experiment.
type Run struct {
	ID         int64
	Experiment string
	Family     string
	Baseline   string
	Variants   []string
	StartedAt  time.Time
	FinishedAt time.Time
	Status     RunStatus
	Error      string `safetext:"text"`
	Config     string `safetext:"text"` // the resolved config, YAML
	Host       Host
	// Owner is the kregress process the store says runs it (set when the
	// run is created or resumed): while the run is "running", whether
	// that process still exists can be checked only on its host.
	Owner RunOwner
}

// RunOwner is the process that created or resumed a run.
type RunOwner struct {
	Hostname string
	PID      int64 // DetachedPID: no process waits for the run
}

// DetachedPID is the owner PID of a run whose cells were handed to a
// scheduler (DetachRun): no kregress process waits for it.
const DetachedPID = -1

// Liveness is what one host can tell about a running run's process.
type Liveness int

const (
	// LiveHere: its process runs on this host.
	LiveHere Liveness = iota
	// GoneHere: it was started on this host and its process is gone
	// (kill -9, a crash, a reboot): the next writing command marks it
	// interrupted.
	GoneHere
	// OtherHost: it was started on another host, whose processes this
	// one cannot see.
	OtherHost
	// Detached: its cells run on a scheduler; the last one finishes it.
	Detached
)

// Liveness says what thisHost can tell about o's process; alive probes a
// local PID.
func (o RunOwner) Liveness(thisHost string, alive func(pid int) bool) Liveness {
	switch {
	case o.PID == DetachedPID:
		return Detached
	case o.Hostname != thisHost:
		return OtherHost
	case alive(int(o.PID)):
		return LiveHere
	default:
		return GoneHere
	}
}

// Host is the machine that ran it.
type Host struct {
	Hostname  string `json:"hostname"`
	CPUModel  string `json:"cpu_model"`
	Cores     int    `json:"cores"`
	MemoryMB  int64  `json:"memory_mb"`
	Kregress  string `json:"kregress_version"`
	GoVersion string `json:"go_version"`
}

// Provenance is everything needed to say what exactly produced a result.
type Provenance struct {
	SourceID     string   `json:"source_id"`
	KernelKey    string   `json:"kernel_key"`
	Patches      []string `json:"patches"`
	PatchSHA256s []string `json:"patch_sha256s"`
	// PatchDetails: per applied patch, its mail headers when it had any.
	PatchDetails []PatchInfo `json:"patch_details,omitempty"`
	// For a git source: the commit, `git describe`, and whether the
	// tree's uncommitted changes were measured on top of it.
	GitCommit    string   `json:"git_commit,omitempty"`
	GitDescribe  string   `json:"git_describe,omitempty"`
	Dirty        bool     `json:"dirty,omitempty"`
	ApplyOffsets []string `json:"apply_offsets,omitempty"`
	TreeChecks   []string `json:"tree_checks,omitempty"`
	ConfigSHA256 string   `json:"config_sha256"`
	Preemption   string   `json:"preemption,omitempty"`
	BaseConfig   string   `json:"base_config"`
	Compiler     string   `json:"compiler"`
	ImageKey     string   `json:"image_key"`
	QEMUVersion  string   `json:"qemu_version"`
	Accel        string   `json:"accel"`
	AccelReason  string   `json:"accel_reason"`
	// Clock is the guest's clock: "host" (real time; empty in runs
	// stored before it was recorded) or "icount shift=N".
	Clock string `json:"clock,omitempty"`
	// Machine is QEMU's machine type and firmware (empty in runs stored
	// before it was recorded).
	Machine   string `json:"machine,omitempty"`
	HostCPU   string `json:"host_cpu"`
	HostCores int    `json:"host_cores"`
	// Host is the machine the cell ran on; HostCPUs the cores its guest
	// was pinned to (none: not pinned); Executor what ran it ("local",
	// "slurm job 12_3 attempt 1 on node7").
	Host         string `json:"host,omitempty"`
	HostCPUs     []int  `json:"host_cpus,omitempty"`
	Executor     string `json:"executor,omitempty"`
	VCPUs        int    `json:"vcpus"`
	MaxVCPUs     int    `json:"max_vcpus"`
	MemoryMB     int    `json:"memory_mb"`
	Cmdline      string `json:"cmdline"`
	CPUsOnline   int    `json:"guest_cpus_online"`
	CPUsPossible int    `json:"guest_cpus_possible"`
	GuestKernel  string `json:"guest_kernel,omitempty"`
	AgentVersion string `json:"agent_version,omitempty"`
	Workload     string `json:"workload"`
	WorkloadArgs string `json:"workload_args"`
	// HostLoad1 is the host's 1-minute load average when the cell
	// started: a cell measured under interference can be told apart.
	HostLoad1 float64 `json:"host_load1,omitempty"`
	// HostLoad is how busy the host was around the cell (nil in runs
	// stored before it was recorded: unknown, never "loaded").
	HostLoad *HostLoad `json:"host_load,omitempty"`
	// Phases: when each step of the cell happened, in seconds after
	// QEMU was started (a console mark as late as the console's poll).
	Phases []Phase `json:"phases,omitempty"`
	// SweepVCPUs is the vCPU count the cell was scheduled at in a run
	// that sweeps counts (vm.cpus_sweep), kept even when its guest never
	// booted: comparisons take each count's cells apart. 0 without a
	// sweep.
	SweepVCPUs int `json:"sweep_vcpus,omitempty"`
}

// HostLoad is how busy the host was while a cell ran: a selftest that
// fails in one boot on a loaded host is suspect, not yet a regression.
type HostLoad struct {
	// Load1Start and Load1End: the 1-minute load average when the cell
	// started and when it ended.
	Load1Start float64 `json:"load1_start"`
	Load1End   float64 `json:"load1_end"`
	// Cores: the host's online CPUs.
	Cores int `json:"cores"`
	// StealPct: CPU time stolen by the hypervisor from this host while
	// the cell ran, in % of all CPU time (/proc/stat); nil when the host
	// does not show it.
	StealPct *float64 `json:"steal_pct,omitempty"`
	// OtherQEMU: qemu-system processes running when the cell started,
	// before its own guest (other guests sharing the host).
	OtherQEMU int `json:"other_qemu"`
	// GuestCPUs: the cell's own guest's vCPUs, whose load is its own.
	GuestCPUs int `json:"guest_cpus,omitempty"`
}

// StealLoadedPct is the steal time above which a host counts as loaded.
const StealLoadedPct = 10

// Loaded says whether the host was busier than it could serve while the
// cell ran, and how: the load average (start or end) above its cores (or
// above the guest's own vCPUs, when the guest alone asks for more), or
// steal time at or above StealLoadedPct. A nil HostLoad is unknown: not
// loaded.
func (h *HostLoad) Loaded() (bool, string) {
	if h == nil || h.Cores <= 0 {
		return false, ""
	}
	load := max(h.Load1Start, h.Load1End)
	limit := float64(max(h.Cores, h.GuestCPUs))
	steal := h.StealPct != nil && *h.StealPct >= StealLoadedPct
	if load <= limit && !steal {
		return false, ""
	}
	why := fmt.Sprintf("load %.1f on %d cores", load, h.Cores)
	if h.StealPct != nil {
		why += fmt.Sprintf(", steal %.0f%%", *h.StealPct)
	}
	if h.OtherQEMU > 0 {
		why += fmt.Sprintf(", %d other qemu-system", h.OtherQEMU)
	}
	return true, why
}

// Phase is one step of a cell and when it happened.
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"s"`
}

// PatchInfo identifies one applied patch.
type PatchInfo struct {
	Name      string `json:"name"`
	SHA256    string `json:"sha256"`
	Subject   string `json:"subject,omitempty"`
	Author    string `json:"author,omitempty"`
	MessageID string `json:"message_id,omitempty"`
}

// Result is one cell: one boot of one variant.
type Result struct {
	ID         int64
	RunID      int64
	Variant    string
	Repetition int
	Seq        int // position in the interleaved order
	Status     Status
	Error      string `safetext:"text"`
	StartedAt  time.Time
	FinishedAt time.Time
	Provenance Provenance
	Metrics    []agentproto.Metric
	// Document is the agent's JSON, verbatim (empty when it failed).
	Document []byte
	// ArtifactDir holds console.log, agent.json, irqsoff.txt.
	ArtifactDir string
	// Worst irqs-off section, for quick listing.
	IrqsoffWorstUS float64
	IrqsoffHolder  string
	// Selftests are the kernel's cgroup selftest outcomes in this cell's
	// guest (only in the cells that ran them: see config selftests).
	Selftests []agentproto.SelftestResult
	// Findings are the kernel's own reports in this cell's console and
	// dmesg: warnings, BUGs, oopses, lockdep, stalls, panics.
	Findings []Finding
	// Superseded: another result of the same cell (run, Seq) is the
	// cell's current one, and this one is kept as history (set by the
	// store when it stores or reads such a result).
	Superseded bool
}

// FindingKind classifies a kernel report.
type FindingKind string

// Kinds of kernel report, as the kernel names them.
const (
	FindingWarning  FindingKind = "warning"   // WARN_ON and friends
	FindingBug      FindingKind = "bug"       // BUG:, kernel BUG at
	FindingOops     FindingKind = "oops"      // Oops:, general protection fault
	FindingKASAN    FindingKind = "kasan"     // BUG: KASAN: ...
	FindingUBSAN    FindingKind = "ubsan"     // UBSAN: ...
	FindingLockdep  FindingKind = "lockdep"   // WARNING: possible ... locking ...
	FindingRCUStall FindingKind = "rcu_stall" // rcu: INFO: ... detected stall
	FindingLockup   FindingKind = "lockup"    // soft or hard lockup
	FindingHungTask FindingKind = "hung_task" // INFO: task ... blocked for more than
	FindingPanic    FindingKind = "panic"     // Kernel panic - not syncing
)

// Finding is one kernel report found in a cell's logs. Title is
// normalised (no addresses, offsets, PIDs or timestamps) so the same bug
// has the same title in every cell and every run; Count is how many times
// the cell's logs hold it; Excerpt is its first occurrence, verbatim.
type Finding struct {
	Kind    FindingKind `json:"kind"`
	Title   string      `json:"title"`
	Count   int         `json:"count"`
	Excerpt string      `json:"excerpt,omitempty" safetext:"text"`
}

// MarkKind says what a mark on a run means.
type MarkKind string

// Marks on runs.
const (
	// MarkGood: a nightly judged the run complete, every cell ok, nothing
	// regressed; later nights may use it as their baseline.
	MarkGood MarkKind = "good"
	// MarkAccepted: a person accepted the run as a baseline although it
	// was not judged good (a known, intended change).
	MarkAccepted MarkKind = "accepted"
	// MarkLook: a nightly measured the run as a further look of the
	// night whose runs precede it (a grey zone): the run is part of
	// that night, never a night of its own. It judges nothing.
	MarkLook MarkKind = "look"
)

// Mark is a judgement kept with a run: who, when and why.
type Mark struct {
	RunID  int64
	Kind   MarkKind
	Who    string
	Reason string `safetext:"text"`
	At     time.Time
}

// Bisect is a bisect kept in the store: what it searches (Spec) and
// where it got to (State), both JSON owned by the bisect package, so an
// interrupted bisect can resume and a finished one be shown again.
type Bisect struct {
	ID         int64
	Experiment string
	Status     RunStatus
	Spec       string
	State      string
	StartedAt  time.Time
	FinishedAt time.Time
}

// Filter selects runs; zero fields match everything.
type Filter struct {
	Experiment string
	Family     string
	Status     RunStatus // "": any
	Before     time.Time // started before
	Limit      int       // 0: no limit
}

// Store keeps runs and results.
type Store interface {
	CreateRun(ctx context.Context, r *Run) error
	FinishRun(ctx context.Context, id int64, status RunStatus, errText string) error
	AddResult(ctx context.Context, r *Result) error
	GetRun(ctx context.Context, id int64) (*Run, error)
	// LatestRun returns the newest run, optionally of one experiment.
	LatestRun(ctx context.Context, experiment string) (*Run, error)
	ListRuns(ctx context.Context, limit int) ([]*Run, error)
	FindRuns(ctx context.Context, f Filter) ([]*Run, error)
	Results(ctx context.Context, runID int64) ([]*Result, error)
	// History returns a run's results that are not current: other
	// attempts at a cell that has a current result (see Status.Infra),
	// in cell order and oldest first within a cell, each with Superseded
	// set.
	History(ctx context.Context, runID int64) ([]*Result, error)
	// ImportRun stores a run and all its results in one transaction,
	// the run's status as given: a failure part way leaves the store as
	// it was. It sets run.ID and each result's RunID and ID.
	ImportRun(ctx context.Context, run *Run, rs []*Result) error
	// CountResults counts a run's results by status without loading
	// them (a listing of many runs needs only the counts).
	CountResults(ctx context.Context, runID int64) (map[Status]int, error)
	DeleteRun(ctx context.Context, id int64) error
	// AddMark keeps a judgement on a run; Marks returns a run's marks,
	// oldest first.
	AddMark(ctx context.Context, m *Mark) error
	Marks(ctx context.Context, runID int64) ([]Mark, error)
	// CreateBisect stores a new bisect and sets its ID; SaveBisect
	// updates its status and state; GetBisect reads it back.
	CreateBisect(ctx context.Context, b *Bisect) error
	SaveBisect(ctx context.Context, b *Bisect) error
	GetBisect(ctx context.Context, id int64) (*Bisect, error)
	// ListBisects returns the newest bisects first, at most limit (0:
	// all).
	ListBisects(ctx context.Context, limit int) ([]*Bisect, error)
	// MarkStale marks runs whose kregress process died as interrupted.
	MarkStale(ctx context.Context) (int, error)
	// MarkInterrupted marks one running run interrupted with note as its
	// error, keeping its cells: for a run whose process, on another host,
	// the user knows is gone. It fails if the run is not running.
	MarkInterrupted(ctx context.Context, id int64, note string) error
	// DetachRun says a run's cells were handed to a scheduler that the
	// kregress which created it does not wait for: its exit does not
	// make the run stale, and the last cell finishes it.
	DetachRun(ctx context.Context, id int64) error
	// ReopenRun sets an interrupted or failed run running again, owned by
	// this process, to finish its missing cells (a resume).
	ReopenRun(ctx context.Context, id int64) error
	// ExtendRun sets a complete, interrupted or failed run running again,
	// owned by this process, with configYAML as its stored configuration
	// (the same experiment with more repetitions), to measure the cells
	// the larger configuration adds into the same run.
	ExtendRun(ctx context.Context, id int64, configYAML string) error
	// Where names the store for humans (a path, or a DSN without password).
	Where() string
	Close() error
}

// VariantNames lists the variants rs hold, sorted.
func VariantNames(rs []*Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rs {
		if !seen[r.Variant] {
			seen[r.Variant] = true
			out = append(out, r.Variant)
		}
	}
	sort.Strings(out)
	return out
}

// OfVariant returns the results of one variant, in their order.
func OfVariant(rs []*Result, variant string) []*Result {
	var out []*Result
	for _, r := range rs {
		if r.Variant == variant {
			out = append(out, r)
		}
	}
	return out
}

// EscapeRun and EscapeResult escape, in place, every control character
// (and bidi or invisible format character) in a run's or a result's
// texts, as internal/safetext does where guest text is decoded. Every
// read edge calls them (the store's reads, export files): runs stored
// before that escaping existed, an export file written by another tool,
// a row edited by hand would otherwise reach a terminal raw through
// whichever renderer shows them. Escaping is idempotent, so text that
// was escaped when stored reads back unchanged.
func EscapeRun(r *Run) { safetext.Strings(r) }

// EscapeResult: see EscapeRun. The agent's document is JSON (its strings
// cannot hold a raw control character) and is skipped: walking it would
// visit every byte.
func EscapeResult(r *Result) {
	doc := r.Document
	r.Document = nil
	safetext.Strings(r)
	r.Document = doc
}

// EscapeMark: see EscapeRun.
func EscapeMark(m *Mark) { safetext.Strings(m) }

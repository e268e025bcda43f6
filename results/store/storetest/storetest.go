// Package storetest is the behaviour every results store must have, run
// against each real database kregress supports (SQLite file, PostgreSQL
// server): every results.Store method, a area per subtest, each on a
// fresh database (round trip, listings and filters, delete, marks,
// bisects, stale-run marking, a run on another host, a cell stored twice,
// an import that fails part way, a writer killed with SIGKILL, two
// processes writing at once without losing anything, and a read-only open
// that writes nothing).
package storetest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// Opener opens the store named by spec (the same database for every call
// with one spec).
type Opener func(spec string) (*store.Store, error)

// Kind is one kind of store under test.
type Kind struct {
	// Open opens for reading and writing, migrating; OpenReadOnly opens
	// an existing store for reading only.
	Open, OpenReadOnly Opener
	// Fresh names a new, empty database of this kind.
	Fresh func(t *testing.T) string
}

const writerEnv = "KREGRESS_STORETEST_WRITER"

// The fixtures' patch families (names of the built-in set, as real runs
// store them), declared once for every fixture of this package.
const (
	family      = "rstat"
	otherFamily = "execve"
)

// WriterMain must be called first in the store package's TestMain: in a
// child process started by Concurrent it writes a run and exits.
func WriterMain(open Opener) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv(writerEnv + "_N"))
	s, err := open(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	if os.Getenv(writerEnv+"_ENDLESS") != "" {
		// Store cells until killed, saying each one that committed.
		run := newRun("killed")
		if err := s.CreateRun(ctx, run); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for i := 0; ; i++ {
			if err := s.AddResult(ctx, newResult(run.ID, i)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			fmt.Printf("stored %d of run %d\n", i+1, run.ID)
		}
	}
	run := newRun("concurrent")
	if err := s.CreateRun(ctx, run); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := 0; i < n; i++ {
		if err := s.AddResult(ctx, newResult(run.ID, i)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	s.FinishRun(ctx, run.ID, results.RunComplete, "")
	s.Close()
	os.Exit(0)
}

func newRun(exp string) *results.Run {
	return &results.Run{Experiment: exp, Family: family, Baseline: "stock", Variants: []string{"stock", "x"},
		StartedAt: time.Now(), Status: results.RunRunning, Config: "a: 1", Host: results.Host{Cores: 2}}
}

func newResult(runID int64, i int) *results.Result {
	return &results.Result{RunID: runID, Variant: []string{"stock", "x"}[i%2], Repetition: i/2 + 1, Seq: i + 1, Status: results.StatusOK,
		StartedAt: time.Now(), FinishedAt: time.Now(), Provenance: results.Provenance{Accel: "tcg", PatchSHA256s: []string{"ab"}},
		Metrics: []agentproto.Metric{
			{Name: "z_first", Unit: "u", Direction: agentproto.LowerIsBetter, Value: float64(i) + 0.5},
			{Name: "a_second", Unit: "u", Direction: agentproto.HigherIsBetter, Value: 7},
		},
		IrqsoffHolder: "cgroup_rstat_flush", IrqsoffWorstUS: 42, Document: []byte(`{"x":1}`),
		Selftests: []agentproto.SelftestResult{
			{Binary: "test_core", Name: "test_cgcore_populated", Outcome: agentproto.SelftestPass},
			{Binary: "test_cpuset", Name: "test_cpuset_perms_object_allow", Outcome: agentproto.SelftestFail},
			{Binary: "test_kmem", Name: agentproto.BinaryEntry, Outcome: agentproto.SelftestTimeout, Detail: "killed after the per-binary timeout"},
		},
		Findings: []results.Finding{
			{Kind: results.FindingWarning, Title: "WARNING in memory_stat_show", Count: 3, Excerpt: "WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1 memory_stat_show+0x1/0x2"},
			{Kind: results.FindingLockdep, Title: "WARNING: possible recursive locking detected", Count: 1},
		}}
}

// Run runs the whole suite against kind k: each area in its own subtest,
// on a fresh database.
func Run(t *testing.T, k Kind) {
	for _, area := range []struct {
		name string
		test func(*testing.T, Kind)
	}{
		{"RoundTrip", roundTrip},
		{"Listings", listings},
		{"Delete", deleteRun},
		{"Marks", marks},
		{"Bisects", bisects},
		{"StaleRuns", staleRuns},
		{"RunOnAnotherHost", runOnAnotherHost},
		{"CellStoredTwice", cellStoredTwice},
		{"ImportIsAtomic", importIsAtomic},
		{"WriterKilled", writerKilled},
		{"TwoProcessesAtOnce", twoProcessesAtOnce},
		{"ReadOnly", readOnly},
	} {
		t.Run(area.name, func(t *testing.T) { area.test(t, k) })
	}
}

// fresh opens a new, empty store of kind k, closed when the test ends.
func fresh(t *testing.T, k Kind) (*store.Store, string) {
	t.Helper()
	spec := k.Fresh(t)
	s, err := k.Open(spec)
	if err != nil {
		t.Fatalf("opening a fresh store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, spec
}

func createRun(t *testing.T, s results.Store, run *results.Run) *results.Run {
	t.Helper()
	if err := s.CreateRun(context.Background(), run); err != nil {
		t.Fatalf("create run %s: %v", run.Experiment, err)
	}
	return run
}

func addResult(t *testing.T, s results.Store, r *results.Result) {
	t.Helper()
	if err := s.AddResult(context.Background(), r); err != nil {
		t.Fatalf("add result of run %d cell %d: %v", r.RunID, r.Seq, err)
	}
}

func getRun(t *testing.T, s results.Store, id int64) *results.Run {
	t.Helper()
	r, err := s.GetRun(context.Background(), id)
	if err != nil {
		t.Fatalf("get run %d: %v", id, err)
	}
	return r
}

func resultsOf(t *testing.T, s results.Store, id int64) []*results.Result {
	t.Helper()
	rs, err := s.Results(context.Background(), id)
	if err != nil {
		t.Fatalf("results of run %d: %v", id, err)
	}
	return rs
}

func finish(t *testing.T, s results.Store, id int64, status results.RunStatus, errText string) {
	t.Helper()
	if err := s.FinishRun(context.Background(), id, status, errText); err != nil {
		t.Fatalf("finish run %d: %v", id, err)
	}
}

// execSQL runs a statement the Store has no method for: what another host
// or a killed process leaves in the database.
func execSQL(t *testing.T, s *store.Store, q string, args ...any) {
	t.Helper()
	if _, err := s.DB().ExecContext(context.Background(), rebind(s, q), args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func ids(runs []*results.Run) []int64 {
	out := make([]int64, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}

// roundTrip: a run and a cell come back whole, through a second handle
// (migrations are idempotent).
func roundTrip(t *testing.T, k Kind) {
	s, spec := fresh(t, k)
	ctx := context.Background()
	if s.Where() == "" {
		t.Fatal("Where() is empty")
	}
	run := createRun(t, s, newRun("e"))
	addResult(t, s, newResult(run.ID, 0))
	finish(t, s, run.ID, results.RunComplete, "")
	again, err := k.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	got := getRun(t, again, run.ID)
	if got.Status != results.RunComplete || got.Host.Cores != 2 || len(got.Variants) != 2 || got.FinishedAt.IsZero() || got.Config != "a: 1" {
		t.Fatalf("run %+v", got)
	}
	rs := resultsOf(t, again, run.ID)
	if len(rs) != 1 {
		t.Fatalf("%d results, want 1", len(rs))
	}
	x := rs[0]
	if x.Provenance.Accel != "tcg" || len(x.Metrics) != 2 || x.IrqsoffHolder != "cgroup_rstat_flush" || string(x.Document) != `{"x":1}` || x.Superseded {
		t.Fatalf("result %+v", x)
	}
	// Metrics come back in the order the agent reported them.
	if x.Metrics[0].Name != "z_first" || x.Metrics[0].Value != 0.5 || x.Metrics[0].Direction != agentproto.LowerIsBetter {
		t.Fatalf("metrics %+v", x.Metrics)
	}
	// Selftest outcomes come back in order, with their detail.
	if len(x.Selftests) != 3 || x.Selftests[1].Outcome != agentproto.SelftestFail || x.Selftests[2].Detail != "killed after the per-binary timeout" || x.Selftests[0].Key() != "test_core/test_cgcore_populated" {
		t.Fatalf("selftests %+v", x.Selftests)
	}
	// Kernel reports come back in order, with count and excerpt.
	if len(x.Findings) != 2 || x.Findings[0].Count != 3 || x.Findings[0].Kind != results.FindingWarning || !strings.HasPrefix(x.Findings[0].Excerpt, "WARNING: CPU") || x.Findings[1].Title != "WARNING: possible recursive locking detected" {
		t.Fatalf("findings %+v", x.Findings)
	}
	if _, err := again.GetRun(ctx, 99999); err == nil {
		t.Fatal("missing run found")
	}
	if err := s.AddResult(ctx, newResult(99999, 0)); err == nil {
		t.Fatal("a result of a missing run was stored")
	}
}

// listings: ListRuns, LatestRun and FindRuns, newest first, each filter
// alone; CountResults by status.
func listings(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	if runs, err := s.ListRuns(ctx, 0); err != nil || len(runs) != 0 {
		t.Fatalf("runs of an empty store: %v %v", ids(runs), err)
	}
	if _, err := s.LatestRun(ctx, ""); err == nil {
		t.Fatal("an empty store has a latest run")
	}
	t0 := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	a, b, c := newRun("x"), newRun("y"), newRun("x")
	a.StartedAt, b.StartedAt, c.StartedAt = t0, t0.Add(time.Hour), t0.Add(2*time.Hour)
	b.Family = otherFamily
	for _, r := range []*results.Run{a, b, c} {
		createRun(t, s, r)
	}
	finish(t, s, b.ID, results.RunFailed, "boom")
	addResult(t, s, newResult(a.ID, 0))
	failed := newResult(a.ID, 1)
	failed.Status = results.StatusBootFailed
	addResult(t, s, failed)

	list := func(limit int) []int64 {
		runs, err := s.ListRuns(ctx, limit)
		if err != nil {
			t.Fatalf("list runs, limit %d: %v", limit, err)
		}
		return ids(runs)
	}
	if got := list(0); fmt.Sprint(got) != fmt.Sprint([]int64{c.ID, b.ID, a.ID}) {
		t.Fatalf("ListRuns(0) = %v, want newest first", got)
	}
	if got := list(2); fmt.Sprint(got) != fmt.Sprint([]int64{c.ID, b.ID}) {
		t.Fatalf("ListRuns(2) = %v", got)
	}
	for exp, want := range map[string]int64{"": c.ID, "y": b.ID, "x": c.ID} {
		got, err := s.LatestRun(ctx, exp)
		if err != nil || got.ID != want {
			t.Fatalf("LatestRun(%q) = %+v, %v; want run %d", exp, got, err, want)
		}
	}
	if _, err := s.LatestRun(ctx, "no-such-experiment"); err == nil {
		t.Fatal("a latest run of an experiment never run")
	}
	for name, tc := range map[string]struct {
		f    results.Filter
		want []int64
	}{
		"experiment": {results.Filter{Experiment: "x"}, []int64{c.ID, a.ID}},
		"family":     {results.Filter{Family: otherFamily}, []int64{b.ID}},
		"status":     {results.Filter{Status: results.RunFailed}, []int64{b.ID}},
		"before":     {results.Filter{Before: t0.Add(90 * time.Minute)}, []int64{b.ID, a.ID}},
		"limit":      {results.Filter{Limit: 1}, []int64{c.ID}},
		"none":       {results.Filter{Experiment: "x", Family: otherFamily}, []int64{}},
	} {
		runs, err := s.FindRuns(ctx, tc.f)
		if err != nil || fmt.Sprint(ids(runs)) != fmt.Sprint(tc.want) {
			t.Fatalf("FindRuns by %s: %v, %v; want %v", name, ids(runs), err, tc.want)
		}
	}
	if got := getRun(t, s, b.ID); got.Error != "boom" || got.Status != results.RunFailed {
		t.Fatalf("failed run: %s %q", got.Status, got.Error)
	}
	if n, err := s.CountResults(ctx, a.ID); err != nil || len(n) != 2 || n[results.StatusOK] != 1 || n[results.StatusBootFailed] != 1 {
		t.Fatalf("counts of run a: %v %v", n, err)
	}
	if n, err := s.CountResults(ctx, b.ID); err != nil || len(n) != 0 {
		t.Fatalf("counts of run b (no results): %v %v", n, err)
	}
}

// deleteRun removes a run with its results and marks, and nothing else.
func deleteRun(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	a, b := createRun(t, s, newRun("a")), createRun(t, s, newRun("b"))
	addResult(t, s, newResult(a.ID, 0))
	addResult(t, s, newResult(b.ID, 0))
	if err := s.AddMark(ctx, &results.Mark{RunID: a.ID, Kind: results.MarkGood}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRun(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetRun(ctx, a.ID); err == nil {
		t.Fatal("deleted run still there")
	}
	if rs := resultsOf(t, s, a.ID); len(rs) != 0 {
		t.Fatal("deleted run's results still there")
	}
	if m, err := s.Marks(ctx, a.ID); err != nil || len(m) != 0 {
		t.Fatalf("deleted run's marks: %v %v", m, err)
	}
	if getRun(t, s, b.ID); len(resultsOf(t, s, b.ID)) != 1 {
		t.Fatal("delete removed another run's results")
	}
}

// marks are kept with who and why, oldest first; none on a missing run.
func marks(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	run := createRun(t, s, newRun("e"))
	if err := s.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkGood, Who: "nightly"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkAccepted, Who: "ana", Reason: "intended slowdown"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Marks(ctx, run.ID)
	if err != nil || len(got) != 2 || got[0].Kind != results.MarkGood || got[0].Who != "nightly" || got[1].Reason != "intended slowdown" || got[1].At.IsZero() {
		t.Fatalf("marks %+v %v", got, err)
	}
	if err := s.AddMark(ctx, &results.Mark{RunID: 99999, Kind: results.MarkAccepted}); err == nil {
		t.Fatal("a mark on a missing run was kept")
	}
}

// bisects are stored, updated, read back and listed newest first.
func bisects(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	b := &results.Bisect{Experiment: "e", Status: results.RunRunning, Spec: `{"good":"a"}`}
	if err := s.CreateBisect(ctx, b); err != nil || b.ID == 0 {
		t.Fatalf("create bisect: id %d, %v", b.ID, err)
	}
	b.Status, b.State, b.FinishedAt = results.RunComplete, `{"culprit":"c"}`, time.Now()
	if err := s.SaveBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetBisect(ctx, b.ID); err != nil || got.Status != results.RunComplete || got.State != `{"culprit":"c"}` || got.Spec != `{"good":"a"}` || got.FinishedAt.IsZero() {
		t.Fatalf("bisect %+v %v", got, err)
	}
	if _, err := s.GetBisect(ctx, 99999); err == nil {
		t.Fatal("missing bisect found")
	}
	b2 := &results.Bisect{Experiment: "e2", Status: results.RunRunning, Spec: `{"good":"b"}`}
	if err := s.CreateBisect(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if bs, err := s.ListBisects(ctx, 0); err != nil || len(bs) != 2 || bs[0].ID != b2.ID || bs[1].State != `{"culprit":"c"}` || bs[1].StartedAt.IsZero() {
		t.Fatalf("list bisects %+v %v", bs, err)
	}
	if bs, err := s.ListBisects(ctx, 1); err != nil || len(bs) != 1 || bs[0].ID != b2.ID {
		t.Fatalf("list bisects, limit 1: %+v %v", bs, err)
	}
}

// staleRuns: a run whose process died is listed and marked interrupted,
// its cells kept; a live one and a detached one are not; a reopened one
// is this process's again.
func staleRuns(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	run := createRun(t, s, newRun("stale"))
	addResult(t, s, newResult(run.ID, 0))
	// Pretend its kregress was kill -9'd: a pid that cannot exist.
	execSQL(t, s, `UPDATE runs SET pid = ? WHERE id = ?`, 1<<30, run.ID)
	live := createRun(t, s, newRun("live")) // this process: alive
	detached := createRun(t, s, newRun("detached"))
	if err := s.DetachRun(ctx, detached.ID); err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s, detached.ID); got.Owner.PID != results.DetachedPID {
		t.Fatalf("detached run's owner %+v", got.Owner)
	}
	stale, err := s.StaleRuns(ctx)
	if err != nil || len(stale) != 1 || stale[0].ID != run.ID || stale[0].PID != 1<<30 {
		t.Fatalf("stale runs %+v %v", stale, err)
	}
	// Its creator is gone; a scheduler's tasks still add its cells.
	if n, err := s.MarkStale(ctx); err != nil || n != 1 {
		t.Fatalf("marked %d, %v", n, err)
	}
	if got := getRun(t, s, run.ID); got.Status != results.RunInterrupted || !strings.Contains(got.Error, "completed cells are kept") {
		t.Fatalf("stale run is %s %q", got.Status, got.Error)
	}
	if len(resultsOf(t, s, run.ID)) != 1 {
		t.Fatal("stale run lost its completed cell")
	}
	if got := getRun(t, s, live.ID); got.Status != results.RunRunning {
		t.Fatalf("live run marked %s", got.Status)
	}
	if got := getRun(t, s, detached.ID); got.Status != results.RunRunning {
		t.Fatalf("detached run marked %s", got.Status)
	}
	// Reopened (a resume), the stale run is this process's again.
	if err := s.ReopenRun(ctx, run.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := s.MarkStale(ctx); err != nil || n != 0 {
		t.Fatalf("a reopened run marked stale: %d, %v", n, err)
	}
	if got := getRun(t, s, run.ID); got.Status != results.RunRunning || got.Error != "" || !got.FinishedAt.IsZero() || got.Owner.PID != int64(os.Getpid()) {
		t.Fatalf("reopened run: %s %q finished %v owner %+v", got.Status, got.Error, got.FinishedAt, got.Owner)
	}
	// Extended (more repetitions of a finished run), it runs again
	// with its new configuration, its cells kept.
	if err := s.FinishRun(ctx, run.ID, results.RunComplete, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.ExtendRun(ctx, run.ID, "repetitions: 10\n"); err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s, run.ID); got.Status != results.RunRunning || got.Config != "repetitions: 10\n" || !got.FinishedAt.IsZero() || len(resultsOf(t, s, run.ID)) != 1 {
		t.Fatalf("extended run: %s, config %q, finished %v", got.Status, got.Config, got.FinishedAt)
	}
}

// runOnAnotherHost: this host cannot tell whether it lives, so MarkStale
// leaves it; MarkInterrupted marks it by hand, once.
func runOnAnotherHost(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	run := createRun(t, s, newRun("elsewhere"))
	addResult(t, s, newResult(run.ID, 0))
	if got := getRun(t, s, run.ID); got.Owner.PID != int64(os.Getpid()) || got.Owner.Hostname == "" {
		t.Fatalf("the run's owner is not recorded: %+v", got.Owner)
	}
	execSQL(t, s, `UPDATE runs SET pid = ?, hostname = ? WHERE id = ?`, 4242, "build-7.example", run.ID)
	got := getRun(t, s, run.ID)
	if got.Owner != (results.RunOwner{Hostname: "build-7.example", PID: 4242}) || got.Owner.Liveness("here", func(int) bool { return true }) != results.OtherHost {
		t.Fatalf("owner %+v", got.Owner)
	}
	if n, err := s.MarkStale(ctx); err != nil || n != 0 {
		t.Fatalf("MarkStale: %d, %v", n, err)
	}
	if got := getRun(t, s, run.ID); got.Status != results.RunRunning {
		t.Fatalf("MarkStale marked another host's run %s", got.Status)
	}
	if err := s.MarkInterrupted(ctx, run.ID, "gone, says the user"); err != nil {
		t.Fatal(err)
	}
	got = getRun(t, s, run.ID)
	if got.Status != results.RunInterrupted || got.Error != "gone, says the user" || got.FinishedAt.IsZero() {
		t.Fatalf("after MarkInterrupted: %s %q %v", got.Status, got.Error, got.FinishedAt)
	}
	if len(resultsOf(t, s, run.ID)) != 1 {
		t.Fatal("MarkInterrupted lost the run's cell")
	}
	if err := s.MarkInterrupted(ctx, run.ID, "again"); err == nil || !strings.Contains(err.Error(), "is interrupted, not running") {
		t.Fatalf("marking an interrupted run: %v", err)
	}
	if err := s.MarkInterrupted(ctx, 99999, "x"); err == nil {
		t.Fatal("marked a missing run interrupted")
	}
}

// cellStoredTwice: one current result per cell, the others history, by
// results.Status.Infra; the schema itself allows one current row.
func cellStoredTwice(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	run := createRun(t, s, newRun("twice"))
	first := newResult(run.ID, 0) // seq 1
	first.Error = "first attempt"
	if addResult(t, s, first); first.Superseded {
		t.Fatal("the first result was stored as history")
	}
	// A retried task measures cell 1 again: kept as history only.
	retry := newResult(run.ID, 0)
	retry.Error = "retry"
	if addResult(t, s, retry); !retry.Superseded {
		t.Fatal("a retry replaced the cell's measurement")
	}
	// Cell 2: the harness failed first (infra_error); a retry that
	// measured it replaces that, and the infra_error is history.
	infra := newResult(run.ID, 1)
	infra.Status, infra.Error = results.StatusInfra, "node lost"
	if addResult(t, s, infra); infra.Superseded {
		t.Fatal("the cell's first result (infra_error) was stored as history")
	}
	measured := newResult(run.ID, 1)
	if addResult(t, s, measured); measured.Superseded {
		t.Fatal("a measurement after infra_error was stored as history")
	}
	// An interrupted attempt never replaces a measurement.
	late := newResult(run.ID, 0)
	late.Status = results.StatusIncomplete
	if addResult(t, s, late); !late.Superseded {
		t.Fatal("an incomplete attempt replaced a measurement")
	}
	rs := resultsOf(t, s, run.ID)
	if len(rs) != 2 {
		t.Fatalf("current results: %d (want one per cell: 2)", len(rs))
	}
	if rs[0].Seq != 1 || rs[0].Error != "first attempt" || rs[1].Seq != 2 || rs[1].Status != results.StatusOK || len(rs[1].Metrics) != 2 {
		t.Fatalf("current results: %+v %+v", rs[0], rs[1])
	}
	if n, err := s.CountResults(ctx, run.ID); err != nil || n[results.StatusOK] != 2 || len(n) != 1 {
		t.Fatalf("counts: %v %v", n, err)
	}
	hist, err := s.History(ctx, run.ID)
	if err != nil || len(hist) != 3 {
		t.Fatalf("history: %d, %v (want the retry, the infra_error and the incomplete)", len(hist), err)
	}
	if hist[0].Error != "retry" || hist[1].Status != results.StatusIncomplete || hist[2].Status != results.StatusInfra {
		t.Fatalf("history not in cell order, oldest first: %q %s %s", hist[0].Error, hist[1].Status, hist[2].Status)
	}
	for _, h := range hist {
		if !h.Superseded || len(h.Metrics) != 2 {
			t.Fatalf("history row %+v", h)
		}
	}
	// The schema itself allows one current row per cell.
	if _, err := s.DB().ExecContext(ctx, rebind(s, `INSERT INTO results (run_id, variant, repetition, seq, status, started_at, finished_at, provenance) VALUES (?, 'stock', 1, 1, 'ok', '', '', '{}')`), run.ID); err == nil {
		t.Fatal("the database took a second current row for cell 1")
	}
	// Two tasks storing one cell at once: one current row.
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = s.AddResult(ctx, newResult(run.ID, 4)) // seq 5
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if rs := resultsOf(t, s, run.ID); len(rs) != 3 {
		t.Fatalf("after 4 concurrent stores of cell 5: %d current results, want 3", len(rs))
	}
}

// importIsAtomic: an import that fails part way leaves nothing.
func importIsAtomic(t *testing.T, k Kind) {
	s, _ := fresh(t, k)
	ctx := context.Background()
	count := func() int {
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM results`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	run := newRun("imported")
	run.Status, run.FinishedAt = results.RunComplete, time.Now()
	var rs []*results.Result
	for i := 0; i < 6; i++ {
		rs = append(rs, newResult(0, i))
	}
	// The fourth result fails to store (a metric twice: the primary key
	// refuses it), as a full disk would.
	rs[3].Metrics = append(rs[3].Metrics, rs[3].Metrics[0])
	if err := s.ImportRun(ctx, run, rs); err == nil || !strings.Contains(err.Error(), "result 4 of 6") {
		t.Fatalf("import with a bad fourth result: %v", err)
	}
	if got, err := s.FindRuns(ctx, results.Filter{Experiment: "imported"}); err != nil || len(got) != 0 {
		t.Fatalf("a failed import left runs %v (%v)", ids(got), err)
	}
	if n := count(); n != 0 {
		t.Fatalf("a failed import left %d results", n)
	}
	rs[3] = newResult(0, 3)
	run = newRun("imported")
	run.Status, run.FinishedAt = results.RunComplete, time.Now()
	if err := s.ImportRun(ctx, run, rs); err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s, run.ID); got.Status != results.RunComplete || got.FinishedAt.IsZero() {
		t.Fatalf("imported run %+v", got)
	}
	if back := resultsOf(t, s, run.ID); len(back) != 6 || rs[5].RunID != run.ID || rs[5].ID == 0 {
		t.Fatalf("imported %d results (want 6), last one's run %d id %d", len(back), rs[5].RunID, rs[5].ID)
	}
}

// writerKilled: a writer killed with SIGKILL while storing cells leaves
// every cell it reported stored, whole, and its run is marked stale.
func writerKilled(t *testing.T, k Kind) {
	s, spec := fresh(t, k)
	ctx := context.Background()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+spec, writerEnv+"_ENDLESS=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var runID int64
	stored := 0
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "stored %d of run %d", &stored, &runID); err != nil {
			t.Fatalf("writer said %q: %v", sc.Text(), err)
		}
		if stored >= 5 {
			break
		}
	}
	// kill -9 while it is storing the next cells.
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	cmd.Wait() // killed: its error is the signal
	if stored < 5 {
		t.Fatalf("the writer stored %d cells before dying: %s", stored, stderr.String())
	}
	if _, err := s.MarkStale(ctx); err != nil {
		t.Fatal(err)
	}
	if got := getRun(t, s, runID); got.Status != results.RunInterrupted || !strings.Contains(got.Error, "completed cells are kept") {
		t.Fatalf("killed writer's run: %+v", got)
	}
	rs := resultsOf(t, s, runID)
	if len(rs) < stored {
		t.Fatalf("%d results after the kill, %d were reported stored", len(rs), stored)
	}
	// Every stored cell is whole: a cell is one transaction.
	for _, r := range rs {
		if len(r.Metrics) != 2 || len(r.Selftests) != 3 || len(r.Findings) != 2 {
			t.Fatalf("cell %d half stored: %d metrics, %d selftests, %d reports", r.Seq, len(r.Metrics), len(r.Selftests), len(r.Findings))
		}
	}
}

// twoProcessesAtOnce: two processes writing into one store lose nothing.
func twoProcessesAtOnce(t *testing.T, k Kind) {
	s, spec := fresh(t, k)
	ctx := context.Background()
	const n = 40
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), writerEnv+"="+spec, writerEnv+"_N="+strconv.Itoa(n))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("writer %d: %v: %s", i, err, out)
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	runs, err := s.FindRuns(ctx, results.Filter{Experiment: "concurrent"})
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs %d %v", len(runs), err)
	}
	for _, r := range runs {
		rs := resultsOf(t, s, r.ID)
		if len(rs) != n || r.Status != results.RunComplete {
			t.Fatalf("run %d: %d results (want %d), status %s", r.ID, len(rs), n, r.Status)
		}
		for _, x := range rs {
			if len(x.Metrics) != 2 {
				t.Fatalf("result %d lost metrics", x.ID)
			}
		}
	}
}

// readOnly: a read-only open reads what a writer stored, refuses every
// write in the store and in the database, and changes nothing.
func readOnly(t *testing.T, k Kind) {
	ctx := context.Background()
	spec := k.Fresh(t)
	if r, err := k.OpenReadOnly(spec); err == nil {
		r.Close()
		t.Fatal("a read-only open of a store that does not exist (or has no schema) succeeded")
	}
	w, err := k.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	run := createRun(t, w, newRun("read-only"))
	for i := 0; i < 3; i++ {
		addResult(t, w, newResult(run.ID, i))
	}
	addResult(t, w, newResult(run.ID, 0)) // a retry: history
	if err := w.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkGood}); err != nil {
		t.Fatal(err)
	}
	b := &results.Bisect{Experiment: "read-only", Status: results.RunRunning, Spec: "{}"}
	if err := w.CreateBisect(ctx, b); err != nil {
		t.Fatal(err)
	}
	// Its kregress died: a reader sees it, and leaves it for a writer to mark.
	execSQL(t, w, `UPDATE runs SET pid = ? WHERE id = ?`, 1<<30, run.ID)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := k.OpenReadOnly(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.ReadOnly() {
		t.Fatal("ReadOnly() is false")
	}
	readsReadOnly(t, r, run.ID)
	for name, write := range map[string]func() error{
		"CreateRun":       func() error { return r.CreateRun(ctx, newRun("x")) },
		"AddResult":       func() error { return r.AddResult(ctx, newResult(run.ID, 5)) },
		"ImportRun":       func() error { return r.ImportRun(ctx, newRun("x"), nil) },
		"FinishRun":       func() error { return r.FinishRun(ctx, run.ID, results.RunComplete, "") },
		"MarkStale":       func() error { _, err := r.MarkStale(ctx); return err },
		"MarkInterrupted": func() error { return r.MarkInterrupted(ctx, run.ID, "x") },
		"DetachRun":       func() error { return r.DetachRun(ctx, run.ID) },
		"ReopenRun":       func() error { return r.ReopenRun(ctx, run.ID) },
		"ExtendRun":       func() error { return r.ExtendRun(ctx, run.ID, "repetitions: 10\n") },
		"AddMark":         func() error { return r.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkGood}) },
		"DeleteRun":       func() error { return r.DeleteRun(ctx, run.ID) },
		"CreateBisect":    func() error { return r.CreateBisect(ctx, &results.Bisect{Experiment: "x", Spec: "{}"}) },
		"SaveBisect":      func() error { return r.SaveBisect(ctx, b) },
	} {
		if err := write(); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v", name, err)
		}
	}
	// The database refuses writes too, whatever the Go code does.
	if _, err := r.DB().ExecContext(ctx, `CREATE TABLE kregress_probe (x INTEGER)`); err == nil {
		t.Fatal("the read-only connection created a table")
	}
	if got := getRun(t, r, run.ID); got.Status != results.RunRunning {
		t.Fatalf("a read-only open marked the stale run %s", got.Status)
	}
}

// readsReadOnly: every read works on a read-only store.
func readsReadOnly(t *testing.T, r *store.Store, runID int64) {
	ctx := context.Background()
	if got := getRun(t, r, runID); got.Experiment != "read-only" {
		t.Fatalf("read-only GetRun: %+v", got)
	}
	if rs := resultsOf(t, r, runID); len(rs) != 3 || len(rs[2].Metrics) != 2 {
		t.Fatalf("read-only Results: %d", len(rs))
	}
	if h, err := r.History(ctx, runID); err != nil || len(h) != 1 {
		t.Fatalf("read-only History: %d %v", len(h), err)
	}
	if n, err := r.CountResults(ctx, runID); err != nil || n[results.StatusOK] != 3 {
		t.Fatalf("read-only CountResults: %v %v", n, err)
	}
	if runs, err := r.ListRuns(ctx, 0); err != nil || len(runs) != 1 {
		t.Fatalf("read-only ListRuns: %v %v", ids(runs), err)
	}
	if got, err := r.LatestRun(ctx, "read-only"); err != nil || got.ID != runID {
		t.Fatalf("read-only LatestRun: %+v %v", got, err)
	}
	if m, err := r.Marks(ctx, runID); err != nil || len(m) != 1 {
		t.Fatalf("read-only Marks: %v %v", m, err)
	}
	if bs, err := r.ListBisects(ctx, 0); err != nil || len(bs) != 1 {
		t.Fatalf("read-only ListBisects: %v %v", bs, err)
	}
	if stale, err := r.StaleRuns(ctx); err != nil || len(stale) != 1 {
		t.Fatalf("read-only StaleRuns: %v %v", stale, err)
	}
}

// rebind turns ? into $n for PostgreSQL test statements.
func rebind(s *store.Store, q string) string {
	if store.IsPostgres(s.Where()) {
		n := 0
		out := []byte{}
		for i := 0; i < len(q); i++ {
			if q[i] == '?' {
				n++
				out = append(out, '$')
				out = append(out, strconv.Itoa(n)...)
				continue
			}
			out = append(out, q[i])
		}
		return string(out)
	}
	return q
}

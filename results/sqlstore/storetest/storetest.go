// Package storetest is the behaviour every results store must have, run by
// each store's tests against a real database (SQLite file, PostgreSQL
// server): round trip, filters, delete, stale-run marking, and two
// processes writing at once without losing anything.
package storetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/report"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/sqlstore"
)

// Opener opens the store under test (a fresh one per call of New, the same
// database for every call of Open with its spec).
type Opener func(spec string) (*sqlstore.Store, error)

const writerEnv = "KREGRESS_STORETEST_WRITER"

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
	return &results.Run{Experiment: exp, Family: "rstat", Baseline: "stock", Variants: []string{"stock", "x"},
		StartedAt: time.Now(), Status: results.RunRunning, Config: "a: 1", Host: results.Host{Cores: 2}}
}

func newResult(runID int64, i int) *results.Result {
	return &results.Result{RunID: runID, Variant: []string{"stock", "x"}[i%2], Repetition: i/2 + 1, Seq: i + 1, Status: results.StatusOK,
		StartedAt: time.Now(), FinishedAt: time.Now(), Provenance: results.Provenance{Accel: "tcg", PatchSHA256s: []string{"ab"}},
		Metrics: []report.Metric{
			{Name: "z_first", Unit: "u", Direction: report.LowerIsBetter, Value: float64(i) + 0.5},
			{Name: "a_second", Unit: "u", Direction: report.HigherIsBetter, Value: 7},
		},
		IrqsoffHolder: "cgroup_rstat_flush", IrqsoffWorstUS: 42, Document: []byte(`{"x":1}`),
		Selftests: []report.SelftestResult{
			{Binary: "test_core", Name: "test_cgcore_populated", Outcome: report.SelftestPass},
			{Binary: "test_cpuset", Name: "test_cpuset_perms_object_allow", Outcome: report.SelftestFail},
			{Binary: "test_kmem", Name: report.BinaryEntry, Outcome: report.SelftestTimeout, Detail: "killed after the per-binary timeout"},
		},
		Findings: []results.Finding{
			{Kind: results.FindingWarning, Title: "WARNING in memory_stat_show", Count: 3, Excerpt: "WARNING: CPU: 0 PID: 1 at mm/memcontrol.c:1 memory_stat_show+0x1/0x2"},
			{Kind: results.FindingLockdep, Title: "WARNING: possible recursive locking detected", Count: 1},
		}}
}

// Run runs the whole suite; spec names a fresh, empty store.
func Run(t *testing.T, open Opener, spec string) {
	s, err := open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()

	t.Run("RoundTrip", func(t *testing.T) {
		run := newRun("e")
		if err := s.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		r := newResult(run.ID, 0)
		if err := s.AddResult(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(ctx, run.ID, results.RunComplete, ""); err != nil {
			t.Fatal(err)
		}
		again, err := open(spec) // a second handle: migrations are idempotent
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		got, err := again.GetRun(ctx, run.ID)
		if err != nil || got.Status != results.RunComplete || got.Host.Cores != 2 || len(got.Variants) != 2 || got.FinishedAt.IsZero() {
			t.Fatalf("run %+v %v", got, err)
		}
		rs, err := again.Results(ctx, run.ID)
		if err != nil || len(rs) != 1 {
			t.Fatalf("results %v %v", rs, err)
		}
		x := rs[0]
		if x.Provenance.Accel != "tcg" || len(x.Metrics) != 2 || x.IrqsoffHolder != "cgroup_rstat_flush" || string(x.Document) != `{"x":1}` {
			t.Fatalf("result %+v", x)
		}
		// Metrics come back in the order the agent reported them.
		if x.Metrics[0].Name != "z_first" || x.Metrics[0].Value != 0.5 || x.Metrics[0].Direction != report.LowerIsBetter {
			t.Fatalf("metrics %+v", x.Metrics)
		}
		// Selftest outcomes come back in order, with their detail.
		if len(x.Selftests) != 3 || x.Selftests[1].Outcome != report.SelftestFail || x.Selftests[2].Detail != "killed after the per-binary timeout" || x.Selftests[0].Key() != "test_core/test_cgcore_populated" {
			t.Fatalf("selftests %+v", x.Selftests)
		}
		// Kernel reports come back in order, with count and excerpt.
		if len(x.Findings) != 2 || x.Findings[0].Count != 3 || x.Findings[0].Kind != results.FindingWarning || !strings.HasPrefix(x.Findings[0].Excerpt, "WARNING: CPU") || x.Findings[1].Title != "WARNING: possible recursive locking detected" {
			t.Fatalf("findings %+v", x.Findings)
		}
		// Marks: kept with who and why, oldest first; none on a missing run.
		if err := again.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkGood, Who: "nightly"}); err != nil {
			t.Fatal(err)
		}
		if err := again.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkAccepted, Who: "ana", Reason: "intended slowdown"}); err != nil {
			t.Fatal(err)
		}
		marks, err := s.Marks(ctx, run.ID)
		if err != nil || len(marks) != 2 || marks[0].Kind != results.MarkGood || marks[1].Reason != "intended slowdown" || marks[1].At.IsZero() {
			t.Fatalf("marks %+v %v", marks, err)
		}
		if err := again.AddMark(ctx, &results.Mark{RunID: 99999, Kind: results.MarkAccepted}); err == nil {
			t.Fatal("a mark on a missing run was kept")
		}
		// Bisects: stored, updated, read back.
		b := &results.Bisect{Experiment: "e", Status: "running", Spec: `{"good":"a"}`}
		if err := again.CreateBisect(ctx, b); err != nil || b.ID == 0 {
			t.Fatalf("create bisect: %v", err)
		}
		b.Status, b.State, b.FinishedAt = "complete", `{"culprit":"c"}`, time.Now()
		if err := again.SaveBisect(ctx, b); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetBisect(ctx, b.ID); err != nil || got.Status != "complete" || got.State != `{"culprit":"c"}` || got.Spec != `{"good":"a"}` || got.FinishedAt.IsZero() {
			t.Fatalf("bisect %+v %v", got, err)
		}
		if _, err := s.GetBisect(ctx, 99999); err == nil {
			t.Fatal("missing bisect found")
		}
		if _, err := again.GetRun(ctx, 99999); err == nil {
			t.Fatal("missing run found")
		}
	})

	t.Run("FilterAndDelete", func(t *testing.T) {
		a, b := newRun("filter-a"), newRun("filter-b")
		s.CreateRun(ctx, a)
		s.CreateRun(ctx, b)
		s.AddResult(ctx, newResult(a.ID, 0))
		s.FinishRun(ctx, b.ID, results.RunFailed, "boom")
		failed := newResult(a.ID, 1)
		failed.Status = results.StatusBootFailed
		if err := s.AddResult(ctx, failed); err != nil {
			t.Fatal(err)
		}
		if n, err := s.CountResults(ctx, a.ID); err != nil || len(n) != 2 || n[results.StatusOK] != 1 || n[results.StatusBootFailed] != 1 {
			t.Fatalf("counts of run a: %v %v", n, err)
		}
		if n, err := s.CountResults(ctx, b.ID); err != nil || len(n) != 0 {
			t.Fatalf("counts of run b (no results): %v %v", n, err)
		}
		got, _ := s.FindRuns(ctx, results.Filter{Experiment: "filter-a"})
		if len(got) != 1 || got[0].ID != a.ID {
			t.Fatalf("filter experiment: %+v", got)
		}
		got, _ = s.FindRuns(ctx, results.Filter{Status: results.RunFailed})
		if len(got) != 1 || got[0].ID != b.ID || got[0].Error != "boom" {
			t.Fatalf("filter status: %+v", got)
		}
		if err := s.DeleteRun(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRun(ctx, a.ID); err == nil {
			t.Fatal("deleted run still there")
		}
		if rs, _ := s.Results(ctx, a.ID); len(rs) != 0 {
			t.Fatal("deleted run's results still there")
		}
		if _, err := s.GetRun(ctx, b.ID); err != nil {
			t.Fatal("delete removed another run")
		}
	})

	t.Run("StaleRunMarkedInterrupted", func(t *testing.T) {
		run := newRun("stale")
		if err := s.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		s.AddResult(ctx, newResult(run.ID, 0))
		// Pretend its kregress was kill -9'd: a pid that cannot exist.
		if _, err := s.DB().ExecContext(ctx, rebind(s, `UPDATE runs SET pid = ? WHERE id = ?`), 1<<30, run.ID); err != nil {
			t.Fatal(err)
		}
		live := newRun("live")
		s.CreateRun(ctx, live) // this process: alive
		detached := newRun("detached")
		s.CreateRun(ctx, detached)
		if err := s.DetachRun(ctx, detached.ID); err != nil {
			t.Fatal(err)
		}
		// Its creator is gone; a scheduler's tasks still add its cells.
		n, err := s.MarkStale(ctx)
		if err != nil || n != 1 {
			t.Fatalf("marked %d, %v", n, err)
		}
		got, _ := s.GetRun(ctx, run.ID)
		if got.Status != results.RunInterrupted {
			t.Fatalf("stale run is %s", got.Status)
		}
		if rs, _ := s.Results(ctx, run.ID); len(rs) != 1 {
			t.Fatal("stale run lost its completed cell")
		}
		if got, _ := s.GetRun(ctx, live.ID); got.Status != results.RunRunning {
			t.Fatalf("live run marked %s", got.Status)
		}
		if got, _ := s.GetRun(ctx, detached.ID); got.Status != results.RunRunning {
			t.Fatalf("detached run marked %s", got.Status)
		}
		// Reopened (a resume), the stale run is this process's again.
		if err := s.ReopenRun(ctx, run.ID); err != nil {
			t.Fatal(err)
		}
		if n, _ := s.MarkStale(ctx); n != 0 {
			t.Fatalf("a reopened run marked stale")
		}
		if got, _ := s.GetRun(ctx, run.ID); got.Status != results.RunRunning || got.Error != "" || !got.FinishedAt.IsZero() {
			t.Fatalf("reopened run: %s %q finished %v", got.Status, got.Error, got.FinishedAt)
		}
	})

	t.Run("TwoProcessesAtOnce", func(t *testing.T) {
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
			rs, _ := s.Results(ctx, r.ID)
			if len(rs) != n || r.Status != results.RunComplete {
				t.Fatalf("run %d: %d results (want %d), status %s", r.ID, len(rs), n, r.Status)
			}
			for _, x := range rs {
				if len(x.Metrics) != 2 {
					t.Fatalf("result %d lost metrics", x.ID)
				}
			}
		}
	})
}

// rebind turns ? into $n for PostgreSQL test statements.
func rebind(s *sqlstore.Store, q string) string {
	if s.Where() == "" || (len(s.Where()) > 8 && s.Where()[:8] == "postgres") {
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

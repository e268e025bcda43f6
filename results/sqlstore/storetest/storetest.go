// Package storetest is the behaviour every results store must have, run by
// each store's tests against a real database (SQLite file, PostgreSQL
// server): round trip, filters, delete, stale-run marking, two processes
// writing at once without losing anything, a cell stored twice, an
// import that fails part way, a writer killed with SIGKILL, and a
// read-only open that writes nothing.
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
		b := &results.Bisect{Experiment: "e", Status: results.RunRunning, Spec: `{"good":"a"}`}
		if err := again.CreateBisect(ctx, b); err != nil || b.ID == 0 {
			t.Fatalf("create bisect: %v", err)
		}
		b.Status, b.State, b.FinishedAt = results.RunComplete, `{"culprit":"c"}`, time.Now()
		if err := again.SaveBisect(ctx, b); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GetBisect(ctx, b.ID); err != nil || got.Status != results.RunComplete || got.State != `{"culprit":"c"}` || got.Spec != `{"good":"a"}` || got.FinishedAt.IsZero() {
			t.Fatalf("bisect %+v %v", got, err)
		}
		if _, err := s.GetBisect(ctx, 99999); err == nil {
			t.Fatal("missing bisect found")
		}
		b2 := &results.Bisect{Experiment: "e2", Status: results.RunRunning, Spec: `{"good":"b"}`}
		if err := again.CreateBisect(ctx, b2); err != nil {
			t.Fatal(err)
		}
		if bs, err := s.ListBisects(ctx, 0); err != nil || len(bs) != 2 || bs[0].ID != b2.ID || bs[1].State != `{"culprit":"c"}` || bs[1].StartedAt.IsZero() {
			t.Fatalf("list bisects %+v %v", bs, err)
		}
		if bs, err := s.ListBisects(ctx, 1); err != nil || len(bs) != 1 || bs[0].ID != b2.ID {
			t.Fatalf("list bisects, limit 1: %+v %v", bs, err)
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

	t.Run("RunOnAnotherHostMarkedByHand", func(t *testing.T) {
		run := newRun("elsewhere")
		if err := s.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		s.AddResult(ctx, newResult(run.ID, 0))
		if got, _ := s.GetRun(ctx, run.ID); got.Owner.PID != int64(os.Getpid()) || got.Owner.Hostname == "" {
			t.Fatalf("the run's owner is not recorded: %+v", got.Owner)
		}
		if _, err := s.DB().ExecContext(ctx, rebind(s, `UPDATE runs SET pid = ?, hostname = ? WHERE id = ?`), 4242, "build-7.example", run.ID); err != nil {
			t.Fatal(err)
		}
		got, _ := s.GetRun(ctx, run.ID)
		if got.Owner != (results.RunOwner{Hostname: "build-7.example", PID: 4242}) || got.Owner.Liveness("here", func(int) bool { return true }) != results.OtherHost {
			t.Fatalf("owner %+v", got.Owner)
		}
		// This host cannot tell: MarkStale leaves it alone.
		if _, err := s.MarkStale(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.GetRun(ctx, run.ID); got.Status != results.RunRunning {
			t.Fatalf("MarkStale marked another host's run %s", got.Status)
		}
		if err := s.MarkInterrupted(ctx, run.ID, "gone, says the user"); err != nil {
			t.Fatal(err)
		}
		got, _ = s.GetRun(ctx, run.ID)
		if got.Status != results.RunInterrupted || got.Error != "gone, says the user" || got.FinishedAt.IsZero() {
			t.Fatalf("after MarkInterrupted: %s %q %v", got.Status, got.Error, got.FinishedAt)
		}
		if rs, _ := s.Results(ctx, run.ID); len(rs) != 1 {
			t.Fatal("MarkInterrupted lost the run's cell")
		}
		if err := s.MarkInterrupted(ctx, run.ID, "again"); err == nil || !strings.Contains(err.Error(), "is interrupted, not running") {
			t.Fatalf("marking an interrupted run: %v", err)
		}
	})

	t.Run("CellStoredTwice", func(t *testing.T) {
		run := newRun("twice")
		if err := s.CreateRun(ctx, run); err != nil {
			t.Fatal(err)
		}
		first := newResult(run.ID, 0) // seq 1
		first.Error = "first attempt"
		if err := s.AddResult(ctx, first); err != nil || first.Superseded {
			t.Fatalf("first result: superseded %v, %v", first.Superseded, err)
		}
		// A retried task measures cell 1 again: kept as history only.
		retry := newResult(run.ID, 0)
		retry.Error = "retry"
		if err := s.AddResult(ctx, retry); err != nil || !retry.Superseded {
			t.Fatalf("retry: superseded %v, %v", retry.Superseded, err)
		}
		// Cell 2: the harness failed first (infra_error); a retry that
		// measured it replaces that, and the infra_error is history.
		infra := newResult(run.ID, 1)
		infra.Status, infra.Error = results.StatusInfra, "node lost"
		if err := s.AddResult(ctx, infra); err != nil || infra.Superseded {
			t.Fatal(err)
		}
		measured := newResult(run.ID, 1)
		if err := s.AddResult(ctx, measured); err != nil || measured.Superseded {
			t.Fatalf("measurement after infra_error: superseded %v, %v", measured.Superseded, err)
		}
		// An interrupted attempt never replaces a measurement.
		late := newResult(run.ID, 0)
		late.Status = results.StatusIncomplete
		if err := s.AddResult(ctx, late); err != nil || !late.Superseded {
			t.Fatalf("incomplete after ok: superseded %v, %v", late.Superseded, err)
		}
		rs, err := s.Results(ctx, run.ID)
		if err != nil || len(rs) != 2 {
			t.Fatalf("current results: %d, %v (want one per cell: 2)", len(rs), err)
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
		for _, h := range hist {
			if !h.Superseded || len(h.Metrics) != 2 {
				t.Fatalf("history row %+v", h)
			}
		}
		// The schema itself allows one current row per cell.
		_, err = s.DB().ExecContext(ctx, rebind(s, `INSERT INTO results (run_id, variant, repetition, seq, status, started_at, finished_at, provenance) VALUES (?, 'stock', 1, 1, 'ok', '', '', '{}')`), run.ID)
		if err == nil {
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
		rs, _ = s.Results(ctx, run.ID)
		if len(rs) != 3 {
			t.Fatalf("after 4 concurrent stores of cell 5: %d current results, want 3", len(rs))
		}
		if err := s.AddResult(ctx, newResult(99999, 0)); err == nil {
			t.Fatal("a result of a missing run was stored")
		}
	})

	t.Run("ImportIsAtomic", func(t *testing.T) {
		count := func() int {
			var n int
			if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM results`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count()
		run := newRun("imported")
		run.Status, run.FinishedAt = results.RunComplete, time.Now()
		var rs []*results.Result
		for i := 0; i < 6; i++ {
			rs = append(rs, newResult(0, i))
		}
		// The fourth result fails to store (a metric twice: the
		// primary key refuses it), as a full disk would.
		rs[3].Metrics = append(rs[3].Metrics, rs[3].Metrics[0])
		err := s.ImportRun(ctx, run, rs)
		if err == nil || !strings.Contains(err.Error(), "result 4 of 6") {
			t.Fatalf("import with a bad fourth result: %v", err)
		}
		if got, _ := s.FindRuns(ctx, results.Filter{Experiment: "imported"}); len(got) != 0 {
			t.Fatalf("a failed import left run %d (%s)", got[0].ID, got[0].Status)
		}
		if n := count(); n != before {
			t.Fatalf("a failed import left %d results", n-before)
		}
		rs[3] = newResult(0, 3)
		run = newRun("imported")
		run.Status, run.FinishedAt = results.RunComplete, time.Now()
		if err := s.ImportRun(ctx, run, rs); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetRun(ctx, run.ID)
		if err != nil || got.Status != results.RunComplete || got.FinishedAt.IsZero() {
			t.Fatalf("imported run %+v %v", got, err)
		}
		if back, _ := s.Results(ctx, run.ID); len(back) != 6 {
			t.Fatalf("imported %d results, want 6", len(back))
		}
	})

	t.Run("WriterKilled", func(t *testing.T) {
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
			fmt.Sscanf(sc.Text(), "stored %d of run %d", &stored, &runID)
			if stored >= 5 {
				break
			}
		}
		// kill -9 while it is storing the next cells.
		cmd.Process.Signal(syscall.SIGKILL)
		go func() {
			for sc.Scan() {
			}
		}()
		cmd.Wait()
		if stored < 5 {
			t.Fatalf("the writer stored %d cells before dying: %s", stored, stderr.String())
		}
		if _, err := s.MarkStale(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetRun(ctx, runID)
		if err != nil || got.Status != results.RunInterrupted || !strings.Contains(got.Error, "completed cells are kept") {
			t.Fatalf("killed writer's run: %+v %v", got, err)
		}
		rs, err := s.Results(ctx, runID)
		if err != nil || len(rs) < stored {
			t.Fatalf("%d results after the kill, %d were reported stored: %v", len(rs), stored, err)
		}
		// Every stored cell is whole: a cell is one transaction.
		for _, r := range rs {
			if len(r.Metrics) != 2 || len(r.Selftests) != 3 || len(r.Findings) != 2 {
				t.Fatalf("cell %d half stored: %d metrics, %d selftests, %d reports", r.Seq, len(r.Metrics), len(r.Selftests), len(r.Findings))
			}
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

// RunReadOnly checks a read-only open (spec names a fresh, empty store):
// it reads what a writer stored, refuses every write in the store and in
// the database, and changes nothing.
func RunReadOnly(t *testing.T, open, openRO Opener, spec string) {
	ctx := context.Background()
	if _, err := openRO(spec); err == nil {
		t.Fatal("a read-only open of a store that does not exist (or has no schema) succeeded")
	}
	w, err := open(spec)
	if err != nil {
		t.Fatal(err)
	}
	run := newRun("read-only")
	if err := w.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := w.AddResult(ctx, newResult(run.ID, i)); err != nil {
			t.Fatal(err)
		}
	}
	// Its kregress died: a reader sees it, and leaves it for a writer to mark.
	if _, err := w.DB().ExecContext(ctx, rebind(w, `UPDATE runs SET pid = ? WHERE id = ?`), 1<<30, run.ID); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := openRO(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.ReadOnly() {
		t.Fatal("ReadOnly() is false")
	}
	got, err := r.GetRun(ctx, run.ID)
	if err != nil || got.Experiment != "read-only" {
		t.Fatalf("read-only GetRun: %+v %v", got, err)
	}
	if rs, err := r.Results(ctx, run.ID); err != nil || len(rs) != 3 || len(rs[2].Metrics) != 2 {
		t.Fatalf("read-only Results: %d %v", len(rs), err)
	}
	stale, err := r.StaleRuns(ctx)
	if err != nil || len(stale) == 0 {
		t.Fatalf("read-only StaleRuns: %v %v", stale, err)
	}
	for name, write := range map[string]func() error{
		"CreateRun":       func() error { return r.CreateRun(ctx, newRun("x")) },
		"AddResult":       func() error { return r.AddResult(ctx, newResult(run.ID, 5)) },
		"FinishRun":       func() error { return r.FinishRun(ctx, run.ID, results.RunComplete, "") },
		"MarkStale":       func() error { _, err := r.MarkStale(ctx); return err },
		"MarkInterrupted": func() error { return r.MarkInterrupted(ctx, run.ID, "x") },
		"AddMark":         func() error { return r.AddMark(ctx, &results.Mark{RunID: run.ID, Kind: results.MarkGood}) },
		"DeleteRun":       func() error { return r.DeleteRun(ctx, run.ID) },
	} {
		if err := write(); !errors.Is(err, sqlstore.ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v", name, err)
		}
	}
	// The database refuses writes too, whatever the Go code does.
	if _, err := r.DB().ExecContext(ctx, `CREATE TABLE kregress_probe (x INTEGER)`); err == nil {
		t.Fatal("the read-only connection created a table")
	}
	if got, _ := r.GetRun(ctx, run.ID); got.Status != results.RunRunning {
		t.Fatalf("a read-only open marked the stale run %s", got.Status)
	}
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

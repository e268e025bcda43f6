package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store/storetest"
)

func TestParseTasks(t *testing.T) {
	out := `JobId=4 ArrayJobId=4 ArrayTaskId=2-3,5%2 JobName=k UserId=root(0) JobState=PENDING Reason=Resources ExitCode=0:0 NodeList=(null) BatchHost=vm
JobId=6 ArrayJobId=4 ArrayTaskId=1 JobName=k JobState=CANCELLED Reason=None ExitCode=0:15 NodeList=node7 BatchHost=node7
JobId=7 ArrayJobId=4 ArrayTaskId=0 JobName=k JobState=COMPLETED Reason=None ExitCode=0:0 NodeList=node3
`
	ts, err := ParseTasks(out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range ts {
		got = append(got, fmt.Sprintf("%d:%s:%s", x.Index, x.State, x.Node))
	}
	if want := "2:PENDING: 3:PENDING: 5:PENDING: 1:CANCELLED:node7 0:COMPLETED:node3"; strings.Join(got, " ") != want {
		t.Fatalf("tasks %v, want %s", got, want)
	}
	if _, err := ParseTasks("JobId=1 ArrayTaskId=x-2 JobState=PENDING"); err == nil {
		t.Fatal("bad range accepted")
	}
}

func TestSubmissionArgs(t *testing.T) {
	s := Submission{Script: "/s/task.sh", Array: "0-3", Name: "kregress-run-1", CPUs: 2, MemoryMB: 1536, Partition: "kvm", Options: []string{"--account=k"}, Output: "/s/task-%a.out"}
	got := strings.Join(s.Args(), " ")
	for _, want := range []string{"--array=0-3", "--cpus-per-task=2", "--mem=1536", "--partition=kvm", "--account=k", "--no-requeue"} {
		if !strings.Contains(got, want) {
			t.Fatalf("sbatch %s: no %s", got, want)
		}
	}
	if !strings.HasSuffix(got, " /s/task.sh") {
		t.Fatalf("script not last: %s", got)
	}
}

// fakeSlurm runs each submitted task in a goroutine, as `kregress cell`
// would (store the cell's result, exit), unless fate says the task dies
// first with some Slurm state.
type fakeSlurm struct {
	mu        sync.Mutex
	store     results.Store
	job       *pipeline.CellJob
	fate      func(index, attempt int) string // "" runs the cell; else the end state
	jobs      map[string]map[int]Task
	submitted []Submission
	cancelled []string
	next      int
}

func (f *fakeSlurm) Submit(ctx context.Context, s Submission) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	id := fmt.Sprint(f.next)
	f.submitted = append(f.submitted, s)
	attempt := 1
	for _, e := range s.Env {
		fmt.Sscanf(e, "KREGRESS_ATTEMPT=%d", &attempt)
	}
	var lo, hi int
	if n, _ := fmt.Sscanf(s.Array, "%d-%d", &lo, &hi); n < 2 {
		hi = lo
	}
	if f.jobs == nil {
		f.jobs = map[string]map[int]Task{}
	}
	f.jobs[id] = map[int]Task{}
	for i := lo; i <= hi; i++ {
		f.jobs[id][i] = Task{Index: i, State: "PENDING"}
		go f.runTask(id, i, attempt)
	}
	return id, nil
}

func (f *fakeSlurm) runTask(id string, i, attempt int) {
	end := "COMPLETED"
	if st := f.fate(i, attempt); st != "" {
		end = st
	} else {
		c := f.job.Cells[i]
		f.store.AddResult(context.Background(), &results.Result{RunID: f.job.RunID, Variant: c.Variant, Repetition: c.Repetition, Seq: c.Seq,
			Status: results.StatusOK, Provenance: results.Provenance{Host: "node1", Executor: fmt.Sprintf("slurm job %s_%d attempt %d", id, i, attempt)}})
	}
	f.mu.Lock()
	f.jobs[id][i] = Task{Index: i, State: end, ExitCode: "0:0", Node: "node1"}
	if end == "VANISH" { // as a pending task that is cancelled
		delete(f.jobs[id], i)
	}
	f.mu.Unlock()
}

func (f *fakeSlurm) Tasks(ctx context.Context, id string) ([]Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ts []Task
	for _, t := range f.jobs[id] {
		ts = append(ts, t)
	}
	return ts, nil
}

func (f *fakeSlurm) Cancel(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	return nil
}

// newJob opens a store with one running run and returns the run's job.
func newJob(t *testing.T) (results.Store, *pipeline.CellJob) {
	store := storetest.SQLite(t)
	run := &results.Run{Experiment: "e", Family: "f", Baseline: "A", Variants: []string{"A", "B"}, Status: results.RunRunning, StartedAt: time.Now()}
	if err := store.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	return store, &pipeline.CellJob{RunID: run.ID, Cells: pipeline.Schedule([]string{"A", "B"}, 3, pipeline.OrderFixed, 0),
		Variants: []pipeline.VariantBuild{{Name: "A"}, {Name: "B"}}, ArtifactsDir: filepath.Join(t.TempDir(), "run-1")}
}

// TestFollowRetriesAndRecordsSlurmsReason: of six tasks, one is lost
// to a node failure once (retried, then ok), one fails twice (stored as
// infra_error naming the state), one is cancelled and one is cancelled
// while pending, which only shows as the task no longer being listed
// (neither is retried).
func TestFollowRetriesAndRecordsSlurmsReason(t *testing.T) {
	store, job := newJob(t)
	f := &fakeSlurm{store: store, job: job, fate: func(i, attempt int) string {
		switch {
		case i == 1 && attempt == 1:
			return "NODE_FAIL"
		case i == 2:
			return "OUT_OF_MEMORY"
		case i == 3:
			return "CANCELLED"
		case i == 4:
			return "VANISH"
		}
		return ""
	}}
	var lines []string
	var mu sync.Mutex
	e := &Executor{Sched: f, Binary: "/shared/bin/kregress", CPUs: 2, MemoryMB: 1536, Poll: 20 * time.Millisecond, StoreSpec: "postgres://x",
		Report: func(format string, a ...any) {
			mu.Lock()
			lines = append(lines, fmt.Sprintf(format, a...))
			mu.Unlock()
		}}
	if err := e.RunCells(context.Background(), job, store); err != nil {
		t.Fatal(err)
	}
	rs, _ := store.Results(context.Background(), job.RunID)
	bySeq := map[int]*results.Result{}
	for _, r := range rs {
		if bySeq[r.Seq] != nil {
			t.Fatalf("cell %d stored twice", r.Seq)
		}
		bySeq[r.Seq] = r
	}
	if len(bySeq) != 6 {
		t.Fatalf("%d cells stored, want 6", len(bySeq))
	}
	if r := bySeq[5]; r.Status != results.StatusInfra || !strings.Contains(r.Error, "cancelled_while_pending") {
		t.Fatalf("cell 5 (cancelled while pending): %s %q", r.Status, r.Error)
	}
	if r := bySeq[6]; r.Status != results.StatusOK {
		t.Fatalf("cell 6: %s %q", r.Status, r.Error)
	}
	if r := bySeq[2]; r.Status != results.StatusOK || !strings.Contains(r.Provenance.Executor, "attempt 2") {
		t.Fatalf("cell 2 (node failure once): %s %q", r.Status, r.Provenance.Executor)
	}
	if r := bySeq[3]; r.Status != results.StatusInfra || !strings.Contains(r.Error, "OUT_OF_MEMORY") || !strings.Contains(r.Error, "attempt 2") {
		t.Fatalf("cell 3 (fails twice): %s %q", r.Status, r.Error)
	}
	if r := bySeq[4]; r.Status != results.StatusInfra || !strings.Contains(r.Error, "CANCELLED") || !strings.Contains(r.Error, "attempt 1") {
		t.Fatalf("cell 4 (cancelled): %s %q", r.Status, r.Error)
	}
	if len(f.submitted) != 3 || f.submitted[0].Array != "0-5" || f.submitted[1].Array == f.submitted[2].Array {
		var arrays []string
		for _, s := range f.submitted {
			arrays = append(arrays, s.Array)
		}
		t.Fatalf("submissions %v, want 0-5 then one retry each for tasks 1 and 2", arrays)
	}
	for _, s := range f.submitted {
		if !strings.Contains(strings.Join(s.Env, " "), "KREGRESS_STORE=postgres://x") {
			t.Fatalf("the store does not reach the tasks: %v", s.Env)
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), "retrying once") {
		t.Fatalf("no retry reported:\n%s", strings.Join(lines, "\n"))
	}
}

// TestInterruptCancelsTheArray: Ctrl-C while tasks are pending cancels
// the array and returns the context's error.
func TestInterruptCancelsTheArray(t *testing.T) {
	store, job := newJob(t)
	block := make(chan struct{})
	defer close(block)
	f := &fakeSlurm{store: store, job: job, fate: func(int, int) string { <-block; return "CANCELLED" }}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	e := &Executor{Sched: f, Poll: 20 * time.Millisecond, Report: func(string, ...any) {}}
	if err := e.RunCells(ctx, job, store); err != context.DeadlineExceeded {
		t.Fatalf("interrupted follow returned %v", err)
	}
	if len(f.cancelled) != 1 || f.cancelled[0] != "1" {
		t.Fatalf("cancelled %v, want [1]", f.cancelled)
	}
}

func TestDetachReturnsAtOnce(t *testing.T) {
	store, job := newJob(t)
	f := &fakeSlurm{store: store, job: job, fate: func(int, int) string { return "" }}
	e := &Executor{Sched: f, Poll: time.Hour, Detach: true, Report: func(string, ...any) {}}
	if err := e.RunCells(context.Background(), job, store); err != pipeline.ErrDetached {
		t.Fatalf("detached submit returned %v", err)
	}
}

// TestResumedJobWaitsForItsOwnCells: a resumed run's job holds only the
// cells the run lacked; the run's earlier results must not count for
// them, or the follow ends (and the run completes) while one still runs.
func TestResumedJobWaitsForItsOwnCells(t *testing.T) {
	store, job := newJob(t)
	ctx := context.Background()
	for _, c := range job.Cells[:4] {
		if err := store.AddResult(ctx, &results.Result{RunID: job.RunID, Variant: c.Variant, Repetition: c.Repetition, Seq: c.Seq, Status: results.StatusOK}); err != nil {
			t.Fatal(err)
		}
	}
	job.Cells = job.Cells[4:] // what Resume runs: cells 5 and 6
	f := &fakeSlurm{store: store, job: job, fate: func(i, attempt int) string {
		if i == 1 {
			time.Sleep(300 * time.Millisecond) // the last cell still runs
		}
		return ""
	}}
	e := &Executor{Sched: f, Poll: 20 * time.Millisecond, StoreSpec: "postgres://x", Report: func(string, ...any) {}}
	if err := e.RunCells(ctx, job, store); err != nil {
		t.Fatal(err)
	}
	rs, _ := store.Results(ctx, job.RunID)
	if len(rs) != 6 {
		t.Fatalf("the follow of the resumed cells ended with %d of 6 cells stored", len(rs))
	}
}

// The shared directory is written by others: a planted binary under the
// hash's name is replaced, not run, and a planted temporary name or link
// is never written through.
func TestSharedBinaryVerifiedAndNeverWrittenThroughALink(t *testing.T) {
	dir := t.TempDir()
	data := []byte("#!/bin/sh\necho the real kregress\n")
	first, err := shareCopy(data, dir)
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep me"), 0o600)
	// A file of another content under the same name, and every
	// temporary name a writer might use made a link to the victim.
	os.WriteFile(first, []byte("#!/bin/sh\necho planted\n"), 0o755)
	for _, name := range []string{first + ".tmp", filepath.Join(dir, "bin", ".kregress.tmp")} {
		os.Symlink(victim, name)
	}
	again, err := shareCopy(data, dir)
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatalf("shared as %s, then as %s", first, again)
	}
	if got, _ := os.ReadFile(again); string(got) != string(data) {
		t.Fatalf("the planted binary was reused: %q", got)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Fatalf("written through a planted link: %q", got)
	}
	// A link under the hash's name to a file with the right bytes is
	// replaced by a regular file (the link could be repointed later).
	good := filepath.Join(t.TempDir(), "good")
	os.WriteFile(good, data, 0o755)
	os.Remove(first)
	os.Symlink(good, first)
	if _, err := shareCopy(data, dir); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat(first)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o755 {
		t.Fatalf("the link under the binary's name was kept: %v %v", st.Mode(), err)
	}
}

func TestJobFileNeverWrittenThroughALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("keep me"), 0o600)
	path := filepath.Join(dir, "job.json")
	os.Symlink(victim, path+".tmp")
	job := &pipeline.CellJob{RunID: 7}
	if err := job.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep me" {
		t.Fatalf("job.json written through a planted link: %q", got)
	}
	back, err := pipeline.ReadCellJob(path)
	if err != nil || back.RunID != 7 {
		t.Fatalf("job read back: %+v, %v", back, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("job.json mode %v, want 0600", st.Mode().Perm())
	}
}

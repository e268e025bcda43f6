package slurm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/kregress/kregress/internal/outfile"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// Check implements config.ExecutorKind: executor.slurm (config checks
// executor.shared_dir for every kind but local).
func (Kind) Check(c *config.Config) error {
	if b := blockOf(c); b.Poll.D() < 100*time.Millisecond {
		return config.Invalid("executor.slurm.poll", "%s is too short (at least 100ms)", b.Poll)
	}
	return nil
}

// memoryOverheadMB is what a task needs beyond the guest's memory: QEMU
// itself and kregress.
const memoryOverheadMB = 512

// Executor runs a job's cells as a Slurm array.
type Executor struct {
	Sched Scheduler
	// Binary is the kregress that tasks run (a copy in the shared
	// directory, so nodes run the submitter's version).
	Binary    string
	Partition string
	Options   []string
	CPUs      int
	MemoryMB  int
	Poll      time.Duration
	// StoreSpec reaches the tasks through their environment.
	StoreSpec string
	// Detach returns once the array is submitted.
	Detach bool
	Report progress.Reporter
	// Env is given to every task (e.g. SLURM_CONF for a test cluster).
	Env []string
}

// NewCellExecutor implements pipeline.CellExecutorMaker.
func (Kind) NewCellExecutor(cfg *config.Config, p *pipeline.Prepared, report progress.Reporter) (pipeline.CellExecutor, error) {
	spec := cfg.StoreSpec()
	if !store.IsPostgres(spec) && !within(spec, cfg.Executor.SharedDir) {
		return nil, fmt.Errorf("executor slurm: store %s is a SQLite file outside executor.shared_dir: the nodes cannot write to it (use a postgres:// team store)", spec)
	}
	bin, err := shareBinary(cfg.Executor.SharedDir)
	if err != nil {
		return nil, err
	}
	b := blockOf(cfg)
	return &Executor{
		Sched: CLI{}, Binary: bin, Partition: b.Partition, Options: b.Options,
		CPUs: cfg.VM.CPUs, MemoryMB: cfg.VM.MemoryMB + memoryOverheadMB, Poll: b.Poll.D(),
		StoreSpec: spec, Detach: cfg.Executor.Detach, Report: report,
	}, nil
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && !strings.HasPrefix(rel, "..")
}

// shareBinary copies the running kregress into dir/bin under a name that
// is its content hash, once.
func shareBinary(dir string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("executor slurm: own binary: %w", err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return "", fmt.Errorf("executor slurm: own binary: %w", err)
	}
	return shareCopy(data, dir)
}

// shareCopy places data in dir/bin as kregress-<hash of data>. The shared
// directory is written by others: a file already under that name is
// reused only when it is a regular file (not a link) with exactly these
// bytes; anything else there is replaced, through a temporary file
// created exclusively (a planted name or link is never written through)
// and renamed over it.
func shareCopy(data []byte, dir string) (string, error) {
	sum := sha256.Sum256(data)
	dst := filepath.Join(dir, "bin", "kregress-"+hex.EncodeToString(sum[:])[:12])
	same, err := holds(dst, int64(len(data)), sum)
	if err != nil {
		return "", fmt.Errorf("executor slurm: checking the shared binary: %w", err)
	}
	if same {
		return dst, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("executor slurm: shared directory: %w", err)
	}
	err = outfile.WriteAtomic(dst, func(f *os.File) error {
		if err := f.Chmod(0o755); err != nil {
			return err
		}
		_, err := f.Write(data)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("executor slurm: copying kregress to the shared directory: %w", err)
	}
	return dst, nil
}

// holds reports whether path is a regular file (its last element not a
// symbolic link) of size bytes whose SHA-256 is sum; a missing file, a
// link or another kind of file does not hold it.
func holds(path string, size int64, sum [sha256.Size]byte) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ELOOP) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !st.Mode().IsRegular() || st.Size() != size {
		return false, nil
	}
	h := sha256.New()
	// One byte past size: a file that grows meanwhile does not match.
	if _, err := io.Copy(h, io.LimitReader(f, size+1)); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return bytes.Equal(h.Sum(nil), sum[:]), nil
}

// taskScript is the batch script: every array task runs one cell.
func taskScript(bin, jobFile string) string {
	return fmt.Sprintf(`#!/bin/sh
# Written by kregress: one array task per cell of the run.
exec %s cell --job %s --index "$SLURM_ARRAY_TASK_ID"
`, shellQuote(bin), shellQuote(jobFile))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// slot is one cell's Slurm side: the job it was last submitted in, how
// often, and what slurmctld last said of it.
type slot struct {
	job      string
	attempts int
	last     *Task
	unseen   int // polls in a row in which its job did not list it
}

// lostAfter: a task its job no longer lists for this many polls (its
// record aged out of slurmctld, or the job vanished) is taken as lost.
const lostAfter = 3

// RunCells implements pipeline.CellExecutor.
func (e *Executor) RunCells(ctx context.Context, job *pipeline.CellJob, store results.Store) error {
	dir := filepath.Join(job.ArtifactsDir, "slurm")
	jobFile := filepath.Join(dir, "job.json")
	if err := job.WriteFile(jobFile); err != nil {
		return fmt.Errorf("executor slurm: %w", err)
	}
	script := filepath.Join(dir, "task.sh")
	// Written like the job file: never through a name planted in the
	// shared directory.
	err := outfile.WriteAtomic(script, func(f *os.File) error {
		if err := f.Chmod(0o755); err != nil {
			return err
		}
		_, err := f.WriteString(taskScript(e.Binary, jobFile))
		return err
	})
	if err != nil {
		return fmt.Errorf("executor slurm: %w", err)
	}
	n := len(job.Cells)
	a := &arrayRun{e: e, job: job, store: store, dir: dir, slots: make([]slot, n), reported: map[int]bool{}}
	a.submit = func(array string, attempt int) (string, error) {
		return e.Sched.Submit(ctx, Submission{
			Script: script, Array: array, Name: fmt.Sprintf("kregress-run-%d", job.RunID),
			CPUs: e.CPUs, MemoryMB: e.MemoryMB, Partition: e.Partition, Options: e.Options,
			Output: filepath.Join(dir, "task-%a.out"),
			Env:    append([]string{"KREGRESS_STORE=" + e.StoreSpec, fmt.Sprintf("KREGRESS_ATTEMPT=%d", attempt)}, e.Env...),
		})
	}
	id, err := a.submit(fmt.Sprintf("0-%d", n-1), 1)
	if err != nil {
		return fmt.Errorf("executor slurm: submitting the array: %w", err)
	}
	for i := range a.slots {
		a.slots[i] = slot{job: id, attempts: 1}
	}
	e.Report("run %d: Slurm array job %s, %d tasks (one per cell); task output in %s", job.RunID, id, n, dir)
	if e.Detach {
		return pipeline.ErrDetached
	}
	tick := time.NewTicker(e.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			e.cancelAll(a.slots)
			return ctx.Err()
		case <-tick.C:
		}
		if finished, err := a.poll(ctx); err != nil || finished {
			return err
		}
	}
}

// arrayRun is a run's array job followed to its end: a slot per cell,
// the cells whose results were reported, and how to submit a task again.
type arrayRun struct {
	e        *Executor
	job      *pipeline.CellJob
	store    results.Store
	dir      string // the job file's, the task script's and the tasks' output
	slots    []slot
	submit   func(array string, attempt int) (string, error)
	reported map[int]bool
}

// poll looks once at Slurm's tasks and then the store's results (a task
// that slurmctld says ended stored its result before it exited), settles
// every cell without a result, and says when every cell has one.
func (a *arrayRun) poll(ctx context.Context) (finished bool, err error) {
	bg := context.Background()
	tasks := a.tasks(ctx)
	stored, err := a.store.Results(bg, a.job.RunID)
	if err != nil {
		return false, fmt.Errorf("executor slurm: reading the run's results: %w", err)
	}
	done := map[int]*results.Result{}
	for _, r := range stored {
		done[r.Seq] = r
	}
	finished = true
	for i, c := range a.job.Cells {
		if r := done[c.Seq]; r != nil {
			if !a.reported[i] {
				a.reported[i] = true
				a.e.Report("%s: %s%s (%s)", a.job.Label(i), r.Status, pipeline.SummaryLine(r), where(r))
			}
			continue
		}
		// The job's own cells, not the run's rows: a resumed run's job
		// holds only the cells it lacked, and its earlier ones must not
		// stand in for those still running.
		finished = false
		if err := a.settle(i, c, tasks); err != nil {
			return false, err
		}
	}
	return finished, nil
}

// tasks is every slot's job's tasks by index, as Slurm lists them now
// (none of a job Slurm did not answer for: asked again next poll).
func (a *arrayRun) tasks(ctx context.Context) map[string]map[int]Task {
	tasks := map[string]map[int]Task{}
	for _, s := range a.slots {
		if _, ok := tasks[s.job]; ok {
			continue
		}
		ts, err := a.e.Sched.Tasks(ctx, s.job)
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			a.e.Report("slurm: %v (will ask again)", err)
		}
		m := map[int]Task{}
		for _, t := range ts {
			m[t.Index] = t
		}
		tasks[s.job] = m
	}
	return tasks
}

// settle follows cell i, which has no result yet: a task still active is
// left alone, one that ended retryably is submitted again once, and one
// that ended for good gets an infrastructure result of its own.
func (a *arrayRun) settle(i int, c pipeline.Cell, tasks map[string]map[int]Task) error {
	s := &a.slots[i]
	t, ok := tasks[s.job][i]
	if !ok {
		s.unseen++
		if s.unseen < lostAfter {
			return nil
		}
		// A pending task that is cancelled drops out of its
		// array's record without a trace (no accounting
		// database to ask); one that ran and vanished was lost.
		if s.last == nil || s.last.State == "PENDING" {
			t = Task{Index: i, State: "CANCELLED", Reason: "cancelled_while_pending(no_longer_listed)"}
		} else {
			t = Task{Index: i, State: "LOST", Reason: "no_longer_known_to_slurmctld", Node: s.last.Node}
		}
	} else {
		s.unseen = 0
	}
	s.last = &t
	if active[t.State] {
		return nil
	}
	if retryable(t.State) && s.attempts < 2 {
		nid, err := a.submit(fmt.Sprint(i), s.attempts+1)
		if err != nil {
			return fmt.Errorf("executor slurm: resubmitting task %d: %w", i, err)
		}
		a.e.Report("%s: task %s_%d ended %s without a result; retrying once as job %s", a.job.Label(i), s.job, i, describe(t), nid)
		s.job, s.attempts, s.unseen = nid, s.attempts+1, 0
		return nil
	}
	if err := a.store.AddResult(context.Background(), a.lostResult(i, c, t)); err != nil {
		return fmt.Errorf("executor slurm: storing cell %d: %w", c.Seq, err)
	}
	return nil
}

// lostResult is the infrastructure result of cell i whose task t ended
// without storing one: it says where the task's output is, and its tail.
func (a *arrayRun) lostResult(i int, c pipeline.Cell, t Task) *results.Result {
	s := a.slots[i]
	out := filepath.Join(a.dir, fmt.Sprintf("task-%d.out", i))
	res := &results.Result{
		RunID: a.job.RunID, Variant: c.Variant, Repetition: c.Repetition, Seq: c.Seq,
		StartedAt: time.Now().UTC(), FinishedAt: time.Now().UTC(), Status: results.StatusInfra,
		ArtifactDir: a.job.CellDir(c),
		Error: fmt.Sprintf("slurm task %s_%d (attempt %d) ended %s without storing a result; its output: %s",
			s.job, i, s.attempts, describe(t), out) + outputTail(out),
	}
	if v, ok := a.job.Variant(c.Variant); ok {
		res.Provenance = v.Provenance
	}
	res.Provenance.Host = t.Node
	res.Provenance.Executor = fmt.Sprintf("slurm job %s_%d attempt %d", s.job, i, s.attempts)
	if t.Node != "" {
		res.Provenance.Executor += " on " + t.Node
	}
	return res
}

// cancelAll cancels every job the cells were submitted in.
func (e *Executor) cancelAll(slots []slot) {
	jobs := map[string]bool{}
	for _, s := range slots {
		jobs[s.job] = true
	}
	var ids []string
	for j := range jobs {
		ids = append(ids, j)
	}
	sort.Strings(ids)
	for _, j := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := e.Sched.Cancel(ctx, j); err != nil {
			e.Report("scancel %s: %v", j, err)
		} else {
			e.Report("cancelled Slurm job %s", j)
		}
		cancel()
	}
}

func describe(t Task) string {
	s := t.State
	if t.ExitCode != "" && t.ExitCode != "0:0" {
		s += ", exit " + t.ExitCode
	}
	if t.Reason != "" && t.Reason != "None" {
		s += ", reason " + t.Reason
	}
	if t.Node != "" {
		s += ", on " + t.Node
	}
	return s
}

func where(r *results.Result) string {
	s := r.Provenance.Host
	if r.Provenance.Executor != "" {
		s += ", " + r.Provenance.Executor
	}
	return strings.TrimPrefix(s, ", ")
}

// outputTail is the end of a task's output file, for the error text.
func outputTail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > 2048 {
		f.Seek(-2048, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	if len(strings.TrimSpace(string(data))) == 0 {
		return ""
	}
	return "\n--- task output (tail) ---\n" + strings.TrimSpace(string(data))
}

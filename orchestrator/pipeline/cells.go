package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/outfile"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/remote"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/results"
)

// CellJob is a run's cells and everything a cell needs, in a form that
// travels: the local executor runs it in this process, the Slurm
// executor writes it to the shared directory and every array task
// (`kregress cell`) reads it back and runs one cell of it.
type CellJob struct {
	RunID    int64          `json:"run_id"`
	Cells    []Cell         `json:"cells"`
	Variants []VariantBuild `json:"variants"`
	AgentCmd string         `json:"agent_cmd"`
	Settings CellSettings   `json:"settings"`
	// ArtifactsDir is this run's directory: a subdirectory per cell.
	ArtifactsDir string `json:"artifacts_dir"`
}

// CellSettings are the cell runner's limits and the guest image's keys.
type CellSettings struct {
	BootTimeout     time.Duration `json:"boot_timeout"`
	WorkloadTimeout time.Duration `json:"workload_timeout"`
	SelftestCmd     string        `json:"selftest_cmd,omitempty"`
	SelftestReps    int           `json:"selftest_reps,omitempty"`
	SelftestTimeout time.Duration `json:"selftest_timeout,omitempty"`
	// ImageDir holds the guest image and its SSH keys (initramfs.LoadKeys).
	ImageDir string `json:"image_dir"`
}

// selftestRuns is the most binary runs one cell's gate can make: each
// binary once, and once more when it failed and reruns are on.
func selftestRuns(cfg *config.Config, p *Prepared) int {
	n := len(cfg.Selftests.Binaries) + len(p.TargetTests)
	if cfg.Selftests.RerunFailures {
		return 2 * n
	}
	return n
}

// Settings derives the cell settings of a prepared experiment.
func Settings(cfg *config.Config, p *Prepared) CellSettings {
	return CellSettings{
		BootTimeout:     cfg.VM.BootTimeout.D(),
		WorkloadTimeout: 2*cfg.Workload.Duration.D() + 2*time.Minute,
		SelftestCmd:     p.SelftestCmd,
		SelftestReps:    cfg.Selftests.Repetitions,
		// Each binary is bounded inside the guest; this bounds the
		// session if the agent itself stops answering.
		SelftestTimeout: time.Duration(selftestRuns(cfg, p)+1) * (cfg.Selftests.Timeout.D() + 10*time.Second),
		ImageDir:        filepath.Dir(p.Image.Path),
	}
}

// Runner builds the real cell runner (QEMU and SSH) for these settings.
func (s CellSettings) Runner(report progress.Reporter) (*CellRunner, error) {
	client, host, err := initramfs.LoadKeys(s.ImageDir)
	if err != nil {
		return nil, fmt.Errorf("guest image keys in %s: %w", s.ImageDir, err)
	}
	return &CellRunner{
		Booter:          vm.QEMUBooter{},
		Dialer:          remote.SSHDialer{ClientKey: client, HostKey: host, Timeout: 10 * time.Second},
		BootTimeout:     s.BootTimeout,
		WorkloadTimeout: s.WorkloadTimeout,
		SelftestCmd:     s.SelftestCmd,
		SelftestReps:    s.SelftestReps,
		SelftestTimeout: s.SelftestTimeout,
		Progress:        func(f string, a ...any) { report("  "+f, a...) },
	}, nil
}

// CellDir is where one cell's artifacts go.
func (j *CellJob) CellDir(c Cell) string {
	if c.CPUs != 0 {
		return filepath.Join(j.ArtifactsDir, fmt.Sprintf("%03d-%s-c%d-r%d", c.Seq, c.Variant, c.CPUs, c.Repetition))
	}
	return filepath.Join(j.ArtifactsDir, fmt.Sprintf("%03d-%s-r%d", c.Seq, c.Variant, c.Repetition))
}

// Label names the job's cell i in progress lines: its place among the
// job's cells (not its seq in the run: a second look's job numbers its
// cells after the first look's), its variant (and vCPU count in a
// sweep) and repetition.
func (j *CellJob) Label(i int) string {
	c := j.Cells[i]
	if c.CPUs != 0 {
		return fmt.Sprintf("[%d/%d] %s at %d vCPUs rep %d", i+1, len(j.Cells), c.Variant, c.CPUs, c.Repetition)
	}
	return fmt.Sprintf("[%d/%d] %s rep %d", i+1, len(j.Cells), c.Variant, c.Repetition)
}

// CellBuild is the build cell c boots: its variant's, shaped to the
// cell's vCPU count in a sweep, which its provenance then records
// (results.Provenance.SweepVCPUs) so that a diff compares the count's
// cells apart from the others', also when the guest never booted.
func (j *CellJob) CellBuild(c Cell) (VariantBuild, bool) {
	vb, ok := j.Variant(c.Variant)
	if ok && c.CPUs != 0 {
		vb.Spec.CPUs = c.CPUs
		vb.Provenance.SweepVCPUs = c.CPUs
	}
	return vb, ok
}

// Variant finds a variant's build by name.
func (j *CellJob) Variant(name string) (VariantBuild, bool) {
	for _, v := range j.Variants {
		if v.Name == name {
			return v, true
		}
	}
	return VariantBuild{}, false
}

// RunCell runs the cell at index i (0-based, in Cells) with r and
// returns its result for the job's run (never nil).
func (j *CellJob) RunCell(ctx context.Context, r *CellRunner, i int) *results.Result {
	c := j.Cells[i]
	vb, ok := j.CellBuild(c)
	if !ok {
		return &results.Result{RunID: j.RunID, Variant: c.Variant, Repetition: c.Repetition, Seq: c.Seq,
			Status: results.StatusInfra, Error: fmt.Sprintf("cell job: no variant %q", c.Variant)}
	}
	res := r.Run(ctx, c, vb, j.AgentCmd, j.CellDir(c))
	res.RunID = j.RunID
	return res
}

// WriteFile writes the job as JSON, readable by its owner only (it names
// the image's private SSH client key's directory).
func (j *CellJob) WriteFile(path string) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// The directory may be shared with other users (Slurm's): the
	// temporary file is created exclusively, never through a name or
	// link planted there, and renamed over path.
	return outfile.WriteAtomic(path, func(f *os.File) error {
		if err := f.Chmod(0o600); err != nil {
			return err
		}
		_, err := f.Write(data)
		return err
	})
}

// ReadCellJob reads a job written by WriteFile.
func ReadCellJob(path string) (*CellJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cell job: %w", err)
	}
	var j CellJob
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("cell job %s: %w", path, err)
	}
	return &j, nil
}

// CellExecutor runs every cell of a job and stores each result in store
// the moment it is known. It returns ctx's error when interrupted (the
// cells not run stay unstored) and an error when a result cannot be
// stored or the cells cannot be run at all; a cell that fails is a
// result, not an error.
type CellExecutor interface {
	RunCells(ctx context.Context, job *CellJob, store results.Store) error
}

// ErrDetached is returned by RunCells of an executor that handed the
// cells to a scheduler and did not wait: the run stays running and fills
// in as they end (the last cell finishes the run).
var ErrDetached = errors.New("cells submitted; not waiting for them (detached)")

// CellExecutorMaker is what an executor package registers with the
// configuration's executor registry (config.RegisterExecutor) beside its
// config.ExecutorKind: the maker of its cell executor.
type CellExecutorMaker interface {
	config.ExecutorKind
	NewCellExecutor(cfg *config.Config, p *Prepared, report progress.Reporter) (CellExecutor, error)
}

// NewCellExecutor makes the executor cfg names (default local).
func NewCellExecutor(cfg *config.Config, p *Prepared, report progress.Reporter) (CellExecutor, error) {
	if cfg.RunsHere() {
		return newLocal(cfg, p, report)
	}
	kind, err := config.ExecutorOf(cfg)
	if err != nil {
		return nil, err
	}
	m, ok := kind.(CellExecutorMaker)
	if !ok {
		return nil, fmt.Errorf("executor %q: registered without a cell executor (pipeline.CellExecutorMaker)", kind.Info().Name)
	}
	return m.NewCellExecutor(cfg, p, report)
}

func newLocal(cfg *config.Config, p *Prepared, report progress.Reporter) (CellExecutor, error) {
	r, err := Settings(cfg, p).Runner(report)
	if err != nil {
		return nil, err
	}
	l := &Local{Runner: r, Report: report, Parallel: cfg.Executor.Parallel}
	if l.Parallel > 1 {
		if l.Cores, err = PinCores(l.Parallel, cfg.VM.CPUs, runtime.NumCPU()); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// PinCores gives each of parallel guests its own vcpus host cores. A
// guest whose vCPUs share host cores with another guest measures the
// other's load, so more guests than fit are refused.
func PinCores(parallel, vcpus, hostCores int) ([][]int, error) {
	if err := config.FitsCores(parallel, vcpus, hostCores); err != nil {
		return nil, err
	}
	sets := make([][]int, parallel)
	for w := range sets {
		for c := 0; c < vcpus; c++ {
			sets[w] = append(sets[w], w*vcpus+c)
		}
	}
	return sets, nil
}

// Local runs cells on this host: one at a time, or Parallel at once with
// guest w pinned to Cores[w].
type Local struct {
	Runner   *CellRunner
	Report   progress.Reporter
	Parallel int
	Cores    [][]int
}

// RunCells implements CellExecutor.
func (l *Local) RunCells(ctx context.Context, job *CellJob, store results.Store) error {
	workers := max(l.Parallel, 1)
	next := make(chan int)
	var (
		mu       sync.Mutex // the store and the first error
		storeErr error
		wg       sync.WaitGroup
	)
	// Store writes use their own context: a Ctrl-C must not lose them.
	bg := context.Background()
	n := len(job.Cells)
	start, finished := time.Now(), 0
	for w := 0; w < workers; w++ {
		r := *l.Runner
		if workers > 1 {
			r.Pin = l.Cores[w]
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // interrupted: the cells not started stay unstored
				}
				c := job.Cells[i]
				label := job.Label(i)
				runner := r
				// A cell's lines are steps of one phase: on a terminal
				// the run's cells are one updating line. A kernel report
				// and a cell that failed stay as lines of their own.
				step := func(text string, left time.Duration) {
					l.Report("%s", progress.Step{Phase: "cells", Text: text, Left: left})
				}
				inCell := func(prefix string) func(string, ...any) {
					return func(f string, a ...any) {
						if msg := fmt.Sprintf(f, a...); strings.HasPrefix(msg, kernelReportLine) {
							l.Report("%s", prefix+msg)
						} else {
							step(prefix+msg, 0)
						}
					}
				}
				if workers > 1 {
					runner.Progress = inCell(label + ": ")
				} else if r.Progress != nil {
					runner.Progress = inCell("  ")
				}
				vb, _ := job.CellBuild(c)
				where := fmt.Sprintf("%s, %d vCPUs", vb.Spec.Accel, vb.Spec.CPUs)
				if clock := vb.Spec.Clock(); clock != vm.HostClock {
					where += ", " + clock
				}
				if len(runner.Pin) > 0 {
					where += fmt.Sprintf(", host cores %v", runner.Pin)
				}
				step(fmt.Sprintf("%s: booting (%s)", label, where), 0)
				res := job.RunCell(ctx, &runner, i)
				mu.Lock()
				err := store.AddResult(bg, res)
				if err != nil && storeErr == nil {
					storeErr = fmt.Errorf("storing cell %d: %w", c.Seq, err)
				}
				finished++
				left, eta := timeLeft(time.Since(start), finished, n)
				mu.Unlock()
				switch line := fmt.Sprintf("%s: %s%s%s", label, res.Status, SummaryLine(res), left); {
				case err != nil:
				case !res.Status.OK():
					l.Report("%s", line)
				default:
					step(line, eta)
				}
			}
		}()
	}
	for i := range job.Cells {
		mu.Lock()
		failed := storeErr != nil
		mu.Unlock()
		if ctx.Err() != nil || failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if storeErr != nil {
		return storeErr
	}
	return ctx.Err()
}

// timeLeft estimates, from the pace so far, when the last of n cells ends.
func timeLeft(elapsed time.Duration, done, n int) (string, time.Duration) {
	if done <= 0 || done >= n {
		return "", 0
	}
	left := progress.Remaining(elapsed, done, n)
	return fmt.Sprintf(" (%d of %d cells done, ~%s left)", done, n, left), left
}

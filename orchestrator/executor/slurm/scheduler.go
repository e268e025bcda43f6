// Package slurm runs an experiment's cells as one Slurm job array: one
// task per cell, each a `kregress cell` on some node that boots, measures
// and stores its result into the team store. The submitting process
// follows the array, retries a task lost to the infrastructure once,
// stores what never came back as infra_error with Slurm's reason, and
// cancels the array on Ctrl-C. It sits above the pipeline: the cell
// itself is pipeline.CellJob.RunCell, as in a local run.
package slurm

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Scheduler is what the executor needs of Slurm; CLI is the real one
// (sbatch, scontrol, scancel), tests use a fake.
type Scheduler interface {
	// Submit queues an array job and returns its ID.
	Submit(ctx context.Context, s Submission) (string, error)
	// Tasks lists what slurmctld knows of an array job's tasks.
	Tasks(ctx context.Context, jobID string) ([]Task, error)
	// Cancel cancels every task of a job.
	Cancel(ctx context.Context, jobID string) error
}

// Submission is one sbatch call.
type Submission struct {
	Script    string // path of the batch script
	Array     string // "0-7", "3"
	Name      string
	CPUs      int
	MemoryMB  int
	Partition string
	Options   []string // extra sbatch options, verbatim
	Output    string   // sbatch --output pattern
	// Env is added to the submitter's environment (sbatch exports it to
	// the tasks): secrets such as the store's DSN travel this way, never
	// through a file in the shared directory.
	Env []string
}

// Task is one array task as slurmctld reports it.
type Task struct {
	Index    int
	State    string // PENDING, RUNNING, COMPLETED, CANCELLED, NODE_FAIL, ...
	Reason   string
	ExitCode string
	Node     string
}

// Args are sbatch's arguments for s.
func (s Submission) Args() []string {
	args := []string{"--parsable", "--array=" + s.Array, "--job-name=" + s.Name,
		"--cpus-per-task=" + strconv.Itoa(s.CPUs), "--mem=" + strconv.Itoa(s.MemoryMB), "--output=" + s.Output,
		// A task that Slurm requeues would run its cell twice; the
		// executor decides about retries.
		"--no-requeue"}
	if s.Partition != "" {
		args = append(args, "--partition="+s.Partition)
	}
	args = append(args, s.Options...)
	return append(args, s.Script)
}

// CLI drives Slurm through its commands (on PATH).
type CLI struct {
	// Env is added to every command's environment (e.g. SLURM_CONF).
	Env []string
}

func (c CLI) run(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(append(cmd.Environ(), c.Env...), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Submit implements Scheduler.
func (c CLI) Submit(ctx context.Context, s Submission) (string, error) {
	out, err := c.run(ctx, s.Env, "sbatch", s.Args()...)
	if err != nil {
		return "", err
	}
	// --parsable: "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if id == "" {
		return "", fmt.Errorf("sbatch printed no job ID")
	}
	return id, nil
}

// Tasks implements Scheduler with `scontrol show job --oneliner`, which,
// unlike squeue, still knows finished tasks (for MinJobAge, 300 s by
// default) and, unlike sacct, needs no accounting database.
func (c CLI) Tasks(ctx context.Context, jobID string) ([]Task, error) {
	out, err := c.run(ctx, nil, "scontrol", "show", "job", "--oneliner", jobID)
	if err != nil {
		return nil, err
	}
	return ParseTasks(string(out))
}

// Cancel implements Scheduler.
func (c CLI) Cancel(ctx context.Context, jobID string) error {
	_, err := c.run(ctx, nil, "scancel", jobID)
	return err
}

// ParseTasks reads `scontrol show job --oneliner` output: one line per
// task, pending tasks of an array folded into one line whose ArrayTaskId
// is a range list ("2-5,7" or "2-5%2").
func ParseTasks(out string) ([]Task, error) {
	var tasks []Task
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := map[string]string{}
		for _, tok := range strings.Fields(line) {
			if k, v, ok := strings.Cut(tok, "="); ok {
				if _, seen := f[k]; !seen {
					f[k] = v
				}
			}
		}
		ids, ok := f["ArrayTaskId"]
		if !ok {
			continue // not an array task
		}
		indices, err := parseRanges(ids)
		if err != nil {
			return nil, fmt.Errorf("scontrol: ArrayTaskId=%s: %w", ids, err)
		}
		node := f["NodeList"]
		if node == "(null)" {
			node = ""
		}
		for _, i := range indices {
			tasks = append(tasks, Task{Index: i, State: f["JobState"], Reason: f["Reason"], ExitCode: f["ExitCode"], Node: node})
		}
	}
	return tasks, nil
}

// parseRanges expands "1-3,7%2" into [1 2 3 7].
func parseRanges(s string) ([]int, error) {
	s, _, _ = strings.Cut(s, "%") // the concurrency limit
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, err
			}
		}
		if b < a || b-a > 1_000_000 {
			return nil, fmt.Errorf("bad range %q", part)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// active states: the task may still store its result.
var active = map[string]bool{
	"PENDING": true, "RUNNING": true, "CONFIGURING": true, "COMPLETING": true,
	"REQUEUED": true, "RESIZING": true, "SUSPENDED": true, "SIGNALING": true, "STAGE_OUT": true,
}

// retryable: the task ended for a reason of the infrastructure (a node
// or a limit), not because someone cancelled it.
func retryable(state string) bool {
	return !active[state] && state != "CANCELLED"
}

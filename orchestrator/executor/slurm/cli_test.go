package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/executor/slurm/slurmtest"
)

// TestCLIOnRealSlurm submits a three-task array to a real single-node
// cluster, cancels one task, and reads the end states back.
func TestCLIOnRealSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts munged, slurmctld and slurmd (run `make test`)")
	}
	c := slurmtest.Start(t)
	cli := CLI{Env: c.Env}
	dir := t.TempDir()
	script := filepath.Join(dir, "task.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho task $SLURM_ARRAY_TASK_ID $MARK\nsleep 2\n"), 0o755)
	ctx := context.Background()
	id, err := cli.Submit(ctx, Submission{Script: script, Array: "0-2", Name: "t", CPUs: 1, MemoryMB: 100,
		Output: filepath.Join(dir, "out-%a.txt"), Env: []string{"MARK=from-env"}})
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	// Cancel task 1 once it runs: a pending task that is cancelled
	// drops out of scontrol's listing instead (the executor knows).
	deadline := time.Now().Add(60 * time.Second)
	for running := false; !running; time.Sleep(100 * time.Millisecond) {
		ts, err := cli.Tasks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range ts {
			running = running || (task.Index == 1 && task.State == "RUNNING")
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 1 never ran: %+v\n%s", ts, c.Logs())
		}
	}
	if err := cli.Cancel(ctx, fmt.Sprintf("%s_1", id)); err != nil {
		t.Fatal(err)
	}
	for {
		ts, err := cli.Tasks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		states := map[int]string{}
		for _, task := range ts {
			states[task.Index] = task.State
		}
		if len(states) == 3 && !active[states[0]] && !active[states[1]] && !active[states[2]] {
			if states[0] != "COMPLETED" || states[1] != "CANCELLED" || states[2] != "COMPLETED" {
				t.Fatalf("end states %v, want 0 and 2 COMPLETED, 1 CANCELLED", states)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks still %v after 60 s\n%s", states, c.Logs())
		}
		time.Sleep(300 * time.Millisecond)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "out-2.txt"))
	if string(out) != "task 2 from-env\n" {
		t.Fatalf("task 2 printed %q: the submission's environment did not reach it", out)
	}
}

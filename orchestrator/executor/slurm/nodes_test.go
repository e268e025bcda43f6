package slurm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/executor/slurm/slurmtest"
)

// TestCLIOnSeveralNodes submits a two-task array to a two-node cluster
// (each slurmd in its own network and UTS namespace) and checks that the
// tasks ran on different nodes, each seeing its node's name as hostname.
func TestCLIOnSeveralNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts munged, slurmctld and two slurmd in namespaces (run `make test`)")
	}
	c := slurmtest.StartNodes(t, 2, 512)
	cli := CLI{Env: c.Env}
	dir := t.TempDir()
	script := filepath.Join(dir, "task.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho $SLURMD_NODENAME $(hostname)\nsleep 2\n"), 0o755)
	ctx := context.Background()
	id, err := cli.Submit(ctx, Submission{Script: script, Array: "0-1", Name: "t", CPUs: 1, MemoryMB: 100, Output: filepath.Join(dir, "out-%a.txt")})
	if err != nil {
		t.Fatalf("%v\n%s", err, c.Logs())
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ts, err := cli.Tasks(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		done := len(ts) == 2
		for _, task := range ts {
			done = done && task.State == "COMPLETED"
		}
		if done {
			if ts[0].Node == ts[1].Node {
				t.Fatalf("both tasks ran on %s: %+v", ts[0].Node, ts)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("tasks %+v after 60 s\n%s", ts, c.Logs())
		}
		time.Sleep(300 * time.Millisecond)
	}
	seen := map[string]bool{}
	for _, i := range []string{"0", "1"} {
		out, _ := os.ReadFile(filepath.Join(dir, "out-"+i+".txt"))
		node, host, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
		if node == "" || node != host {
			t.Fatalf("task %s printed %q: want its node's name twice (SLURMD_NODENAME and hostname)", i, out)
		}
		seen[node] = true
	}
	if len(seen) != 2 {
		t.Fatalf("tasks saw nodes %v, want two", seen)
	}
}

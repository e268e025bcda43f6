package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kregress/kregress/orchestrator/executor/slurm/slurmtest"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
	"github.com/kregress/kregress/results/store/pgtest"
)

// slurmExperiment: 2 variants x 2 repetitions of the one kernel the
// other tests built, 1 vCPU per guest so the 2-core node runs two tasks
// at once.
var slurmExperiment = sameKernelTwice("e2e-slurm", 2) + strings.Replace(bisectWorkload, "cpus: 2", "cpus: 1", 1)

// TestSlurm runs an experiment through a real single-node Slurm cluster
// (munged, slurmctld, slurmd on loopback) into a real PostgreSQL team
// store, the same experiment locally, a Slurm run with a task cancelled
// mid-cell, a detached one, and one interrupted with Ctrl-C.
func TestSlurm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Slurm and PostgreSQL and boots 14 guests (run `make test`)")
	}
	bin := binDir(t)
	cluster := slurmtest.Start(t)
	dsn := pgtest.Start(t).CreateDB(t, "kregress_slurm")
	shared := t.TempDir()
	// The nodes (here: this host) find the kernels the other tests built
	// under shared_dir/cache.
	if err := os.Symlink(cacheDir(), filepath.Join(shared, "cache")); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(t.TempDir(), "slurm.yaml")
	os.WriteFile(exp, []byte(slurmExperiment), 0o644)
	env := append(append([]string{}, cluster.Env...), "KREGRESS_STORE="+dsn, "KREGRESS_EXECUTOR_SHARED_DIR="+shared, "KREGRESS_EXECUTOR_SLURM_POLL=1s")
	kregress := func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "kregress"), args...)
		cmd.Env = append(append(os.Environ(), "KREGRESS_AGENT="+filepath.Join(bin, "kagent"), "GITHUB_STEP_SUMMARY="), env...)
		return cmd
	}
	store, err := store.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	host, _ := os.Hostname()
	f := slurmFixture{kregress: kregress, cluster: cluster, store: store, exp: exp}

	// 1. Through Slurm.
	viaSlurm := checkSlurmRun(t, f, host)
	// 2. The same experiment here: the same cells, statuses and metrics.
	checkLocalRunMatches(t, f, viaSlurm)
	// 3. A task cancelled mid-cell: infra_error, and the run completes.
	checkCancelledTask(t, f)
	// 4. Detached.
	detachedRun(t, kregress, store, exp)
	// 5. Ctrl-C on the submitter cancels the array.
	checkInterruptedRun(t, f)
}

// slurmFixture is what every phase of TestSlurm shares: the one cluster,
// the one team store and the one experiment file, and kregress run with
// the cluster's, the store's and the shared directory's environment.
type slurmFixture struct {
	kregress func(args ...string) *exec.Cmd
	cluster  *slurmtest.Cluster
	store    results.Store
	exp      string
}

// checkSlurmRun runs the experiment through Slurm and checks that every
// cell ran there (on this host) and that the run completed with all 4
// cells, which it returns for the comparison with the local run.
func checkSlurmRun(t *testing.T, f slurmFixture, host string) []*results.Result {
	t.Helper()
	t0 := time.Now()
	out, err := f.kregress("run", "--extra-rounds", "0", "-c", f.exp, "--executor.kind", "slurm").CombinedOutput()
	logAfter(t, "slurm run (%.0f s):\n%s", time.Since(t0).Seconds(), out)
	if err != nil {
		t.Fatalf("kregress run --executor slurm: %v\n%s", err, f.cluster.Logs())
	}
	slurmRun := latestRun(t, f.store, "")
	viaSlurm := resultsOf(t, f.store, slurmRun.ID)
	for _, r := range viaSlurm {
		if r.Status != results.StatusOK {
			t.Fatalf("slurm cell %d: %s %s", r.Seq, r.Status, r.Error)
		}
		if !strings.HasPrefix(r.Provenance.Executor, "slurm job ") || r.Provenance.Host != host {
			t.Fatalf("slurm cell %d provenance: executor %q host %q", r.Seq, r.Provenance.Executor, r.Provenance.Host)
		}
	}
	if slurmRun.Status != results.RunComplete || len(viaSlurm) != 4 {
		t.Fatalf("slurm run %d: %s with %d cells, want complete with 4", slurmRun.ID, slurmRun.Status, len(viaSlurm))
	}
	return viaSlurm
}

// checkLocalRunMatches runs the same experiment with the local executor
// and checks that its cells have the same shape as viaSlurm's.
func checkLocalRunMatches(t *testing.T, f slurmFixture, viaSlurm []*results.Result) {
	t.Helper()
	t0 := time.Now()
	out, err := f.kregress("run", "--extra-rounds", "0", "-c", f.exp, "--executor.kind", "local").CombinedOutput()
	logAfter(t, "local run (%.0f s):\n%s", time.Since(t0).Seconds(), out)
	if err != nil {
		t.Fatalf("kregress run --executor local: %v", err)
	}
	local := resultsOf(t, f.store, latestRun(t, f.store, "").ID)
	if a, b := cellShape(viaSlurm), cellShape(local); a != b {
		t.Fatalf("slurm cells differ from local ones:\n%s\nvs\n%s", a, b)
	}
}

// checkCancelledTask scancels array task 1 mid-cell and checks that its
// cell (seq 2) is an infra_error while the run still completes with the
// other cells good.
func checkCancelledTask(t *testing.T, f slurmFixture) {
	t.Helper()
	run := f.kregress("run", "--extra-rounds", "0", "-c", f.exp, "--executor.kind", "slurm")
	var buf bytes.Buffer
	run.Stdout, run.Stderr = &buf, &buf
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	job := waitRunning(t, f.cluster, 1, 3*time.Second)
	if out, err := f.cluster.Command("scancel", job+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v %s", err, out)
	}
	err := run.Wait()
	logAfter(t, "slurm run with task 1 cancelled:\n%s", buf.String())
	if err != nil {
		t.Fatalf("the run with a cancelled task failed: %v", err)
	}
	cancelled := latestRun(t, f.store, "")
	rs := resultsOf(t, f.store, cancelled.ID)
	if cancelled.Status != results.RunComplete || len(rs) != 4 {
		t.Fatalf("run %d: %s with %d cells, want complete with 4", cancelled.ID, cancelled.Status, len(rs))
	}
	for _, r := range rs {
		want := results.StatusOK
		if r.Seq == 2 { // task 1
			want = results.StatusInfra
		}
		if r.Status != want {
			t.Fatalf("cell %d: %s (%s), want %s", r.Seq, r.Status, r.Error, want)
		}
	}
}

// checkInterruptedRun sends Ctrl-C to the submitter once array task 0
// runs and checks that the array leaves the queue and the run is stored
// as interrupted.
func checkInterruptedRun(t *testing.T, f slurmFixture) {
	t.Helper()
	run := f.kregress("run", "--extra-rounds", "0", "-c", f.exp, "--executor.kind", "slurm")
	var buf bytes.Buffer
	run.Stdout, run.Stderr = &buf, &buf
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	job := waitRunning(t, f.cluster, 0, time.Second)
	run.Process.Signal(os.Interrupt)
	err := run.Wait()
	logAfter(t, "slurm run interrupted (%v):\n%s", err, buf.String())
	// Cancelled tasks leave the queue once their processes are gone
	// (SIGTERM, then SIGKILL after KillWait, 10 s here).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		q, _ := f.cluster.Command("squeue", "-h", "-j", job).Output()
		if strings.TrimSpace(string(q)) == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still queued 30 s after Ctrl-C:\n%s", job, q)
		}
	}
	if r := latestRun(t, f.store, ""); r.Status != results.RunInterrupted {
		t.Fatalf("interrupted run %d is %s", r.ID, r.Status)
	}
}

// detachedRun submits with --detach, which returns at once; the run is
// shown filling in and the last cell's task finishes it.
func detachedRun(t *testing.T, kregress func(args ...string) *exec.Cmd, store results.Store, exp string) {
	t0 := time.Now()
	out, err := kregress("run", "--extra-rounds", "0", "-c", exp, "--executor.kind", "slurm", "--executor.detach", "--repetitions", "1").CombinedOutput()
	logAfter(t, "detached submit (%.1f s):\n%s", time.Since(t0).Seconds(), out)
	if err != nil || !strings.Contains(string(out), "submitted") {
		t.Fatalf("run --detach: %v", err)
	}
	run := latestRun(t, store, "")
	show, err := kregress("results", "show", fmt.Sprint(run.ID)).CombinedOutput()
	if err != nil || !strings.Contains(string(show), "running") {
		t.Fatalf("results show of the detached run (%v):\n%s", err, show)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		r, err := store.GetRun(context.Background(), run.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == results.RunComplete {
			break
		}
		if r.Status != results.RunRunning || time.Now().After(deadline) {
			t.Fatalf("detached run %d is %s (%s)", run.ID, r.Status, r.Error)
		}
		time.Sleep(time.Second)
	}
	rs := resultsOf(t, store, run.ID)
	if len(rs) != 2 || rs[0].Status != results.StatusOK || rs[1].Status != results.StatusOK {
		t.Fatalf("detached run: %d cells: %s", len(rs), cellShape(rs))
	}
	t.Logf("detached run %d completed by its tasks %.0f s after submission", run.ID, time.Since(t0).Seconds())
}

// latestRun is the newest run of experiment in s (of any, for "").
func latestRun(t *testing.T, s results.Store, experiment string) *results.Run {
	t.Helper()
	run, err := s.LatestRun(context.Background(), experiment)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func resultsOf(t *testing.T, store results.Store, id int64) []*results.Result {
	t.Helper()
	rs, err := store.Results(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// cellShape is what must not depend on where cells ran: which cells,
// their statuses and the metrics each reported.
func cellShape(rs []*results.Result) string {
	var lines []string
	for _, r := range rs {
		var names []string
		for _, m := range r.Metrics {
			names = append(names, m.Name)
		}
		sort.Strings(names)
		lines = append(lines, fmt.Sprintf("%d %s r%d %s %s", r.Seq, r.Variant, r.Repetition, r.Status, strings.Join(names, ",")))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// waitRunning waits until array task index of the cluster's newest job
// has been running for at least d, and returns the job's ID.
func waitRunning(t *testing.T, c *slurmtest.Cluster, index int, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	var since time.Time
	for time.Now().Before(deadline) {
		out, _ := c.Command("squeue", "-h", "-r", "-o", "%F %K %T").Output()
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var job, idx, state string
			fmt.Sscan(line, &job, &idx, &state)
			if idx == fmt.Sprint(index) && state == "RUNNING" {
				if since.IsZero() {
					since = time.Now()
				}
				if time.Since(since) >= d {
					return job
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("array task %d never ran for %s\n%s", index, d, c.Logs())
	return ""
}

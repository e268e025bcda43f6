package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/store"
)

// qemuPIDs lists QEMU processes whose command line mentions substr.
func qemuPIDs(substr string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if bytes.Contains(cmdline, []byte("qemu-system")) && bytes.Contains(cmdline, []byte(substr)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func writeConfig(t *testing.T, experiment string, reps int, duration string) string {
	cfg := strings.Replace(shortExperiment, "experiment: e2e", "experiment: "+experiment, 1)
	cfg = strings.Replace(cfg, "repetitions: 1", fmt.Sprintf("repetitions: %d", reps), 1)
	cfg = strings.Replace(cfg, "duration: 3s", "duration: "+duration, 1)
	// The kill tests kill "the first cell": the baseline's, in fixed order.
	cfg += "order: fixed\n"
	p := filepath.Join(t.TempDir(), experiment+".yaml")
	os.WriteFile(p, []byte(cfg), 0o644)
	return p
}

// lockedBuffer is a bytes.Buffer safe to read while a process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func startRun(t *testing.T, bin, resultsDir, cfg string) (*exec.Cmd, *lockedBuffer) {
	cmd := exec.Command(filepath.Join(bin, "kregress"), "run", "--extra-rounds", "0", "-c", cfg)
	cmd.Env = append(os.Environ(), "KREGRESS_CACHE_DIR="+cacheDir(), "KREGRESS_RESULTS_DIR="+resultsDir, "KREGRESS_AGENT="+filepath.Join(bin, "kagent"))
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out
}

// waitFor polls cond every 200 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestInterruptionsAndConcurrentRuns: two `kregress run` processes write
// into one store at once; a QEMU killed mid-workload is stored as an
// infrastructure error while the run goes on; a kregress killed with -9
// takes its QEMU with it and its run is marked interrupted, with the
// completed cells intact.
func TestInterruptionsAndConcurrentRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("boots real guests (run `make test`)")
	}
	bin := binDir(t)
	resultsDir := t.TempDir()
	ctx := context.Background()
	dbPath := filepath.Join(resultsDir, "kregress.db")

	// Two runs at once into one store.
	runTwoAtOnce(t, bin, resultsDir)
	store, err := store.OpenSQLite(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	checkConcurrentRuns(t, store)

	killQEMUMidWorkload(t, bin, resultsDir, store)
	killCfg, runID, kept := killKregressAfterFirstCell(t, bin, resultsDir, store)
	resumeKilledRun(t, bin, resultsDir, store, killCfg, runID, kept)

	// Everything stored before is still there.
	for i := 0; i < 2; i++ {
		r, _ := store.LatestRun(ctx, fmt.Sprintf("concurrent-%d", i))
		if rs, _ := store.Results(ctx, r.ID); len(rs) != 2 {
			t.Fatalf("concurrent run %d lost results", i)
		}
	}
}

// runTwoAtOnce runs concurrent-0 and concurrent-1 at the same time into
// the store in resultsDir and checks that both succeed.
func runTwoAtOnce(t *testing.T, bin, resultsDir string) {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd, out := startRun(t, bin, resultsDir, writeConfig(t, fmt.Sprintf("concurrent-%d", i), 1, "3s"))
			errs[i] = cmd.Wait()
			outs[i] = out.String()
		}(i)
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("concurrent run %d: %v\n%s", i, errs[i], outs[i])
		}
	}
}

// checkConcurrentRuns checks that both concurrent runs stored complete,
// with two good cells each.
func checkConcurrentRuns(t *testing.T, store results.Store) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		run := latestRun(t, store, fmt.Sprintf("concurrent-%d", i))
		rs, _ := store.Results(ctx, run.ID)
		if run.Status != results.RunComplete || len(rs) != 2 {
			t.Fatalf("concurrent run %d: %s with %d results", i, run.Status, len(rs))
		}
		for _, r := range rs {
			if r.Status != results.StatusOK || len(r.Metrics) == 0 {
				t.Fatalf("concurrent run %d: %s %s: %s", i, r.Variant, r.Status, r.Error)
			}
		}
	}
}

// killQEMUMidWorkload kills -9 the QEMU of the first cell of run
// kill-qemu during its workload and checks that the cell is stored as an
// infrastructure error while the run goes on.
func killQEMUMidWorkload(t *testing.T, bin, resultsDir string, store results.Store) {
	t.Helper()
	ctx := context.Background()
	cmd, out := startRun(t, bin, resultsDir, writeConfig(t, "kill-qemu", 1, "8s"))
	var victim []int
	waitFor(t, 3*time.Minute, "the first guest's SSH session", func() bool {
		victim = qemuPIDs(filepath.Join(resultsDir, "artifacts"))
		return len(victim) == 1 && strings.Contains(out.String(), "ssh ready after")
	})
	time.Sleep(4 * time.Second) // the workload is running
	syscall.Kill(victim[0], syscall.SIGKILL)
	// The run goes on and completes; with its baseline's only cell lost
	// there is nothing to compare, which kregress says with its documented
	// exit code 4 (baseline unmeasurable).
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 4 || !strings.Contains(out.String(), "baseline stock could not be measured") {
		t.Fatalf("run after QEMU kill: want exit 4 naming the baseline, got %v\n%s", err, out)
	}
	run, _ := store.LatestRun(ctx, "kill-qemu")
	rs, _ := store.Results(ctx, run.ID)
	if len(rs) != 2 || rs[0].Status != results.StatusInfra || !strings.Contains(rs[0].Error, "QEMU exited during the workload") || rs[1].Status != results.StatusOK {
		for _, r := range rs {
			t.Logf("%s: %s: %s", r.Variant, r.Status, r.Error)
		}
		t.Fatalf("after killing QEMU: %d results", len(rs))
	}
}

// killKregressAfterFirstCell kills -9 a kregress run of two repetitions
// once its first cell is stored, checks that its QEMU dies with it and
// that `results list` reports the process gone without changing the run,
// and returns the run's configuration file, its id and the number of
// cells it kept.
func killKregressAfterFirstCell(t *testing.T, bin, resultsDir string, store results.Store) (killCfg string, runID int64, kept int) {
	t.Helper()
	ctx := context.Background()
	killCfg = writeConfig(t, "kill-kregress", 2, "3s")
	cmd, out := startRun(t, bin, resultsDir, killCfg)
	waitFor(t, 3*time.Minute, "the first stored cell", func() bool {
		r, err := store.LatestRun(ctx, "kill-kregress")
		if err != nil {
			return false
		}
		rs, _ := store.Results(ctx, r.ID)
		runID = r.ID
		return len(rs) >= 1 && len(qemuPIDs(fmt.Sprintf("run-%d/", r.ID))) == 1
	})
	cmd.Process.Kill() // SIGKILL: no cleanup of its own
	cmd.Wait()
	waitFor(t, 10*time.Second, "its QEMU to die with it", func() bool { return len(qemuPIDs(fmt.Sprintf("run-%d/", runID))) == 0 })
	list := exec.Command(filepath.Join(bin, "kregress"), "results", "list")
	list.Env = append(os.Environ(), "KREGRESS_RESULTS_DIR="+resultsDir)
	listing, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("results list: %v\n%s", err, listing)
	}
	logAfter(t, "after kill -9:\n%s", listing)
	run, _ := store.GetRun(ctx, runID)
	rs, _ := store.Results(ctx, runID)
	// results list is read-only: it says the process is gone and changes
	// nothing; the next writing command (the resume below) marks the run
	// interrupted.
	if run.Status != results.RunRunning || !strings.Contains(string(listing), "process gone") || len(rs) < 1 || rs[0].Status != results.StatusOK {
		t.Fatalf("killed run: status %s, results %+v\n%s", run.Status, rs, out)
	}
	return killCfg, runID, len(rs)
}

// resumeKilledRun checks that `run --resume` finishes the killed run
// runID, which kept kept cells: only the missing cells run, into the same
// run.
func resumeKilledRun(t *testing.T, bin, resultsDir string, store results.Store, killCfg string, runID int64, kept int) {
	t.Helper()
	ctx := context.Background()
	resume := exec.Command(filepath.Join(bin, "kregress"), "run", "--extra-rounds", "0", "-c", killCfg, "--resume", fmt.Sprint(runID))
	resume.Env = append(os.Environ(), "KREGRESS_CACHE_DIR="+cacheDir(), "KREGRESS_RESULTS_DIR="+resultsDir, "KREGRESS_AGENT="+filepath.Join(bin, "kagent"))
	resumed, err := resume.CombinedOutput()
	logAfter(t, "resume:\n%s", resumed)
	if err != nil || !strings.Contains(string(resumed), fmt.Sprintf("resuming run %d: %d of 4 cells to run", runID, 4-kept)) {
		t.Fatalf("run --resume %d: %v", runID, err)
	}
	run, _ := store.GetRun(ctx, runID)
	rs, _ := store.Results(ctx, runID)
	if run.Status != results.RunComplete || len(rs) != 4 {
		t.Fatalf("resumed run: %s with %d cells, want complete with 4", run.Status, len(rs))
	}
	for _, r := range rs {
		if r.Status != results.StatusOK {
			t.Fatalf("resumed run cell %d: %s %s", r.Seq, r.Status, r.Error)
		}
	}
}

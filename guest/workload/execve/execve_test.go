package execve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/workload/percpu/percputest"
	"github.com/kregress/kregress/internal/testfile"
)

func TestValidate(t *testing.T) {
	ok := Params{Workers: 0, Chain: 100, Duration: 5 * time.Second, Window: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]Params{
		"workers": {Workers: -1, Chain: 1, Duration: time.Second, Window: time.Second},
		"chain":   {Chain: 0, Duration: time.Second, Window: time.Second},
		"short":   {Chain: 1, Duration: time.Millisecond, Window: time.Millisecond},
	} {
		if p.Validate() == nil {
			t.Errorf("%s out of range accepted", name)
		}
	}
}

// Worker i runs on the spread's CPU i, and cpus_used counts where the
// workers' chains ran, as each first chain reported it before it was
// reaped, not where the workers asked to run.
func TestRunWorkersPinsEveryWorker(t *testing.T) {
	dir := t.TempDir()
	var bins []string
	for i := range 3 {
		bin := filepath.Join(dir, fmt.Sprintf("doexec.%d", i))
		testfile.Write(t, bin, "#!/bin/sh\nexit 0\n")
		os.Chmod(bin, 0o755)
		bins = append(bins, bin)
	}
	var reports atomic.Int64
	fake := &percputest.Fake{Process: func(pid int) (int, error) {
		reports.Add(1)
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return -1, err
		}
		if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); f[0] != "Z" {
			t.Errorf("pid %d asked where it ran in state %s, want a zombie (exited, not reaped)", pid, f[0])
		}
		return 7, nil
	}}
	sp := fake.Spread(t, 0, 2, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	execs := make([]atomic.Int64, len(bins))
	if err := runWorkers(ctx, sp, bins, 10, execs); err != nil {
		t.Fatal(err)
	}
	for i := range execs {
		if execs[i].Load() == 0 || execs[i].Load()%10 != 0 {
			t.Errorf("worker %d: %d execs, want whole chains of 10", i, execs[i].Load())
		}
	}
	if got := fake.Pins(); !slices.Equal(got, []int{0, 2, 5}) || fake.Released() != 3 {
		t.Errorf("pinned %v, released %d, want a worker on each of 0, 2, 5", got, fake.Released())
	}
	if reports.Load() != 3 || sp.Used() != 1 {
		t.Errorf("%d reports, cpus_used %d, want one report per worker, all on CPU 7", reports.Load(), sp.Used())
	}

	// A chain that fails is the workers' error, with its output.
	testfile.Write(t, bins[1], "#!/bin/sh\necho broken >&2\nexit 3\n")
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := runWorkers(ctx, sp, bins, 10, execs)
	if err == nil || !strings.Contains(err.Error(), "broken") || !strings.Contains(err.Error(), bins[1]) {
		t.Fatalf("failing chain: %v", err)
	}
}

package lrudrain

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/percpu/percputest"
	"github.com/kregress/kregress/internal/testfile"
)

func TestValidateAndMissingTrigger(t *testing.T) {
	ok := Params{Pause: 20 * time.Millisecond, Duration: 4 * time.Second, Window: time.Second, Trigger: "compact_memory", SysctlDir: "/nonexistent"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := ok
	bad.Pause = 0
	if bad.Validate() == nil {
		t.Fatal("pause 0 accepted")
	}
	bad = ok
	bad.Faulters = -1
	if bad.Validate() == nil {
		t.Fatal("faulters -1 accepted")
	}
	_, err := Run(context.Background(), ok)
	if err == nil || !strings.Contains(err.Error(), "CONFIG_COMPACTION") {
		t.Fatalf("missing trigger should name the config option: %v", err)
	}
	bad = ok
	bad.Trigger = "sync"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "drop_caches, compact_memory") {
		t.Fatalf("unknown trigger: %v", err)
	}
	if p := (Params{SysctlDir: "/proc/sys/vm"}).triggerPath(); p != "/proc/sys/vm/drop_caches" {
		t.Fatalf("default trigger writes %s", p)
	}
}

// faultLoop must return when its context ends (it runs on every CPU).
func TestFaultLoopStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() { faultLoop(ctx); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("faultLoop did not stop")
	}
}

// Faulter i is started from a thread on the spread's CPU i, and each
// reports where it ran, while it still runs, once the busy drains are
// timed: cpus_used counts those reports.
func TestBusyFaultersPinnedAndReported(t *testing.T) {
	dir := t.TempDir()
	self := testfile.Write(t, filepath.Join(dir, "kagent"), "#!/bin/sh\nexec sleep 3600\n")
	os.Chmod(self, 0o755)
	testfile.Write(t, filepath.Join(dir, "drop_caches"), "")
	var reported []int
	var mu sync.Mutex
	fake := &percputest.Fake{Process: func(pid int) (int, error) {
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("faulter %d asked where it ran after it ended: %v", pid, err)
		}
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, pid)
		return 3 + len(reported)%2, nil
	}}
	sp := fake.Spread(t, 0, 2, 5)
	p := Params{Pause: time.Millisecond, SysctlDir: dir, Self: self}
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	idle, busy, err := idleThenBusy(ctx, p, sp, sp.Count(percpu.PerCPU))
	if err != nil || len(idle) == 0 || len(busy) == 0 {
		t.Fatalf("%d idle, %d busy drains: %v", len(idle), len(busy), err)
	}
	if got := fake.Pins(); !slices.Equal(got, []int{0, 2, 5}) || fake.Released() != 3 {
		t.Errorf("pinned %v, released %d, want a faulter started on each of 0, 2, 5", got, fake.Released())
	}
	if len(reported) != 3 || sp.Used() != 2 {
		t.Errorf("%d faulters reported, cpus_used %d, want 3 reports on CPUs 3 and 4", len(reported), sp.Used())
	}
	for _, pid := range reported {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("faulter %d still runs after the phase", pid)
		}
	}
}

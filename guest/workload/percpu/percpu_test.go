package percpu_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/percpu/percputest"
)

func TestCountAndCPU(t *testing.T) {
	s, err := percpu.New([]int{0, 3, 5}, &percputest.Fake{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Count(percpu.PerCPU) != 3 || s.Count(7) != 7 || s.Count(1) != 1 {
		t.Errorf("counts %d %d %d, want one per online CPU (3), then as asked", s.Count(percpu.PerCPU), s.Count(7), s.Count(1))
	}
	var got []int
	for i := 0; i < 7; i++ {
		got = append(got, s.CPU(i))
	}
	if want := []int{0, 3, 5, 0, 3, 5, 0}; !slices.Equal(got, want) {
		t.Errorf("actors' CPUs %v, want %v (the online CPUs in turn)", got, want)
	}
	if _, err := percpu.New(nil, &percputest.Fake{}); err == nil {
		t.Error("a spread over no CPU accepted")
	}
}

// Every actor is pinned to its own CPU, and cpus_used counts the
// distinct CPUs the actors reported, not the ones they asked for.
func TestTallyFromActorsReports(t *testing.T) {
	// Four actors on CPUs 0, 2, 4, 6: the one on 4 reports it ran on 2
	// (a pin that did not hold), the one on 6 fails to report.
	fake := &percputest.Fake{Thread: func(cpu int) (int, error) {
		switch cpu {
		case 4:
			return 2, nil
		case 6:
			return -1, errors.New("no report for CPU 6")
		}
		return cpu, nil
	}}
	s := fake.Spread(t, 0, 2, 4, 6)
	var wg sync.WaitGroup
	for i := 0; i < s.Count(percpu.PerCPU); i++ {
		wg.Go(func() {
			a, err := s.Pin(i)
			if err != nil {
				t.Error(err)
				return
			}
			defer a.Release()
			a.Ran()
		})
	}
	wg.Wait()
	if !slices.Equal(fake.Pins(), []int{0, 2, 4, 6}) || fake.Released() != 4 {
		t.Errorf("pinned to %v, released %d, want each online CPU once", fake.Pins(), fake.Released())
	}
	if s.Used() != 2 {
		t.Errorf("cpus_used %d, want 2 (CPUs 0 and 2 reported)", s.Used())
	}
	if m := s.Metric(); m.Name != "cpus_used" || m.Value != 2 {
		t.Errorf("metric %+v", m)
	}
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "1 reports") || !strings.Contains(w[0], "no report for CPU 6") {
		t.Errorf("warnings %q, want the failed report", w)
	}
}

func TestStatCPU(t *testing.T) {
	fields := func(comm string, processor string) string {
		f := make([]string, 50)
		for i := range f {
			f[i] = "0"
		}
		f[0], f[1], f[2] = "1234", "("+comm+")", "S"
		f[38] = processor
		return strings.Join(f, " ") + "\n"
	}
	for comm, cpu := range map[string]string{"kagent": "7", "a b) c (d": "12", ")": "0", "x": "8191"} {
		got, err := percpu.StatCPU([]byte(fields(comm, cpu)))
		if err != nil || fmt.Sprint(got) != cpu {
			t.Errorf("comm %q: %d %v, want %s", comm, got, err, cpu)
		}
	}
	for name, bad := range map[string]string{
		"no comm":  "1234 kagent S 1",
		"short":    "1234 (kagent) S 1 2 3",
		"negative": fields("k", "-1"),
		"word":     fields("k", "x"),
		"huge":     fields("k", "99999999999999999999"),
		"past max": fields("k", "8192"),
	} {
		if got, err := percpu.StatCPU([]byte(bad)); err == nil {
			t.Errorf("%s: CPU %d", name, got)
		}
	}
}

// The real pinning: a pinned thread runs on its CPU, a process it starts
// inherits the binding (and says so where it ran, also as a zombie), and
// release gives the thread its former CPUs back.
func TestOSPin(t *testing.T) {
	var mask unix.CPUSet
	if err := unix.SchedGetaffinity(0, &mask); err != nil {
		t.Fatal(err)
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 4; c++ {
		if mask.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	for _, cpu := range cpus {
		done := make(chan struct{})
		go func() {
			defer close(done)
			// The test's own lock keeps this thread after release.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var before unix.CPUSet
			unix.SchedGetaffinity(0, &before)
			th, err := percpu.OS{}.Pin(cpu)
			if err != nil {
				t.Error(err)
				return
			}
			for range 100 {
				runtime.Gosched()
				if got, err := th.CPU(); err != nil || got != cpu {
					t.Errorf("pinned to %d, running on %d (%v)", cpu, got, err)
					break
				}
			}
			out, err := exec.Command("/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status").Output()
			if err != nil || strings.Fields(string(out))[1] != fmt.Sprint(cpu) {
				t.Errorf("a child of the thread pinned to %d: %q %v", cpu, out, err)
			}
			child := exec.Command("/bin/sh", "-c", "exit 0")
			if err := child.Start(); err != nil {
				t.Error(err)
			} else {
				if err := percpu.WaitUnreaped(child.Process.Pid); err != nil {
					t.Error(err)
				}
				if got, err := (percpu.OS{}).ProcessCPU(child.Process.Pid); err != nil || got != cpu {
					t.Errorf("zombie child of the thread pinned to %d ran on %d (%v)", cpu, got, err)
				}
				child.Wait()
			}
			th.Release()
			var after unix.CPUSet
			unix.SchedGetaffinity(0, &after)
			if after != before {
				t.Errorf("after release the thread has %d CPUs, had %d", after.Count(), before.Count())
			}
		}()
		<-done
	}
	if _, err := (percpu.OS{}).Pin(-1); err == nil {
		t.Error("CPU -1 accepted")
	}
	if _, err := (percpu.OS{}).ProcessCPU(os.Getpid()); err != nil {
		t.Error(err)
	}
}

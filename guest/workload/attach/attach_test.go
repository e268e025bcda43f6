package attach

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/kregress/kregress/guest/workload/percpu"
	"github.com/kregress/kregress/guest/workload/percpu/percputest"
)

func TestValidate(t *testing.T) {
	ok := Params{Movers: 2, Duration: 5 * time.Second, Window: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	ok.Movers = percpu.PerCPU
	if err := ok.Validate(); err != nil {
		t.Fatalf("one mover per online CPU: %v", err)
	}
	for name, p := range map[string]Params{
		"movers": {Movers: -1, Duration: time.Second, Window: time.Second},
		"pause":  {Movers: 1, Pause: 2 * time.Second, Duration: time.Second, Window: time.Second},
		"window": {Movers: 1, Duration: time.Second, Window: time.Minute},
	} {
		if p.Validate() == nil {
			t.Errorf("%s out of range accepted", name)
		}
	}
}

// Mover i moves its child from a thread on the spread's CPU i, and
// cpus_used counts the CPUs the movers reported after their first move.
// The cgroups are plain directories here: a write to cgroup.procs or
// cpuset.cpus is a file write.
func TestPhasePinsEveryMover(t *testing.T) {
	fake := &percputest.Fake{Thread: func(cpu int) (int, error) { return cpu + 1, nil }}
	sp := fake.Spread(t, 0, 2, 5)
	r := &attachRun{movers: sp.Count(percpu.PerCPU), sp: sp, a: t.TempDir(), b: t.TempDir(), all: "0,2,5", first: "0"}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r.phase(ctx, false)
	if e, ok := r.firstErr.Load().(error); ok {
		t.Fatal(e)
	}
	if len(r.lat) < 3 || r.writes.Load() == 0 {
		t.Fatalf("%d moves, %d cpuset.cpus writes", len(r.lat), r.writes.Load())
	}
	if got := fake.Pins(); !slices.Equal(got, []int{0, 2, 5}) || fake.Released() != 3 {
		t.Errorf("pinned %v, released %d, want a mover on each of 0, 2, 5", got, fake.Released())
	}
	if sp.Used() != 3 {
		t.Errorf("cpus_used %d, want the 3 CPUs the movers reported", sp.Used())
	}
	if cpus, _ := os.ReadFile(filepath.Join(r.a, "cpuset.cpus")); string(cpus) != "0,2,5" && string(cpus) != "0" {
		t.Errorf("cpuset.cpus %q, want all online CPUs or the first", cpus)
	}
}

// Package percputest fakes the pinning of guest/workload/percpu, so that a
// workload's test can check that each of its actors was pinned to its own
// CPU and that cpus_used counts the CPUs they reported, without binding
// the test's threads or needing the CPUs it names.
package percputest

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/kregress/kregress/guest/workload/percpu"
)

// Fake is a percpu.Pinner that binds nothing: it records the CPUs actors
// were pinned to, and says where they ran as its fields say.
type Fake struct {
	// Thread says where a thread pinned to cpu runs; nil: on cpu.
	Thread func(cpu int) (int, error)
	// Process says where process pid ran; nil: an error.
	Process func(pid int) (int, error)

	mu       sync.Mutex
	pins     []int
	released int
}

// Pin records cpu.
func (f *Fake) Pin(cpu int) (percpu.Thread, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pins = append(f.pins, cpu)
	return &thread{f: f, cpu: cpu}, nil
}

// ProcessCPU is f.Process's answer.
func (f *Fake) ProcessCPU(pid int) (int, error) {
	if f.Process == nil {
		return -1, errors.New("fake: no process reports")
	}
	return f.Process(pid)
}

// Pins is the CPUs actors were pinned to, ascending.
func (f *Fake) Pins() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(slices.Values(f.pins))
}

// Released is how many pinned threads were released.
func (f *Fake) Released() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.released
}

// Spread is a spread over online pinned by f.
func (f *Fake) Spread(t testing.TB, online ...int) *percpu.Spread {
	t.Helper()
	sp, err := percpu.New(online, f)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

type thread struct {
	f   *Fake
	cpu int
}

func (t *thread) CPU() (int, error) {
	if t.f.Thread == nil {
		return t.cpu, nil
	}
	return t.f.Thread(t.cpu)
}

func (t *thread) Release() {
	t.f.mu.Lock()
	defer t.f.mu.Unlock()
	t.f.released++
}

package percpu_test

import (
	"testing"

	"github.com/kregress/kregress/guest/sysinfo"
	"github.com/kregress/kregress/guest/workload/percpu"
)

// StatCPU reads a file of the guest kernel's: any bytes give a CPU below
// sysinfo.MaxCPUs, or an error.
func FuzzStatCPU(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 17 3 0 0 0 0 0"))
	f.Add([]byte("1 (a) b) S"))
	f.Fuzz(func(t *testing.T, stat []byte) {
		cpu, err := percpu.StatCPU(stat)
		if err == nil && (cpu < 0 || cpu >= sysinfo.MaxCPUs) {
			t.Fatalf("CPU %d from %q", cpu, stat)
		}
	})
}

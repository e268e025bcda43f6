package sysinfo

import (
	"slices"
	"testing"
)

// ParseCPUList reads a file of the guest kernel's: any text gives CPUs
// ascending, each once, below MaxCPUs, or an error.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,5,7-8", "0", "0-8191", "3-1", "0-3,2", "99999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		cpus, err := ParseCPUList(list)
		if err != nil {
			return
		}
		if len(cpus) == 0 || len(cpus) > MaxCPUs {
			t.Fatalf("%q: %d CPUs", list, len(cpus))
		}
		for i, c := range cpus {
			if c < 0 || c >= MaxCPUs || (i > 0 && c <= cpus[i-1]) {
				t.Fatalf("%q: CPU %d at %d of %v", list, c, i, cpus)
			}
		}
		// Written back as the kernel writes it, the list reads the same.
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("%q written as %q reads %v, %v", list, FormatCPUList(cpus), again, err)
		}
	})
}

package vm

import (
	"slices"
	"strings"
	"testing"
)

// The icount clock needs single-threaded TCG (QEMU refuses icount with
// MTTCG) and no sleeping; KVM ignores it; provenance names it.
func TestICountArgs(t *testing.T) {
	s := Spec{QEMU: "qemu-system-x86_64", CPUs: 2, MemoryMB: 512, Accel: "tcg", Dir: "/d", SSHPort: 2222}
	args := strings.Join(s.Args(), " ")
	if !strings.Contains(args, "-accel tcg,thread=multi") || strings.Contains(args, "-icount") || s.Clock() != "host" {
		t.Fatalf("host clock: %s (%s)", args, s.Clock())
	}
	s.ICount, s.ICountShift = true, 3
	a := s.Args()
	if i := slices.Index(a, "-icount"); i < 0 || a[i+1] != "shift=3,sleep=off" {
		t.Fatalf("icount: %v", a)
	}
	if i := slices.Index(a, "-accel"); a[i+1] != "tcg,thread=single" {
		t.Fatalf("icount needs single-threaded TCG: %v", a)
	}
	if s.Clock() != "icount shift=3" {
		t.Fatalf("clock %q", s.Clock())
	}
	s.Accel = "kvm"
	if slices.Contains(s.Args(), "-icount") || s.Clock() != "host" {
		t.Fatalf("kvm: %v %q", s.Args(), s.Clock())
	}
}

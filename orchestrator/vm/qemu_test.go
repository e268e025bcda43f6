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

// A QEMU names its cell's directory (ps, and the e2e kill tests, find a
// cell's QEMU by it), commas doubled as QEMU's option syntax wants.
func TestArgsNameTheCell(t *testing.T) {
	s := Spec{QEMU: "qemu-system-x86_64", CPUs: 1, MemoryMB: 512, Accel: "tcg", Dir: "/r/artifacts/run-7/001-stock-r1", SSHPort: 2222}
	a := s.Args()
	if i := slices.Index(a, "-name"); i < 0 || a[i+1] != "guest=kregress:/r/artifacts/run-7/001-stock-r1" {
		t.Fatalf("-name: %v", a)
	}
	s.Dir = "/r/a,b"
	if a := s.Args(); a[slices.Index(a, "-name")+1] != "guest=kregress:/r/a,,b" {
		t.Fatalf("comma not doubled: %v", a)
	}
}

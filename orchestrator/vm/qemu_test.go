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

// The base arguments: accelerator, CPUs, no reboot, SSH on loopback only,
// restricted networking, pvpanic, the console on fd 3, QMP in the
// directory given.
func TestQEMUArgs(t *testing.T) {
	s := Spec{Kernel: "/k", Initrd: "/i", CPUs: 4, MaxCPUs: 8, MemoryMB: 512, Accel: "tcg", Dir: "/d", SSHPort: 2222, Cmdline: "foo=1"}
	a := strings.Join(s.Args(), " ")
	for _, want := range []string{"-accel tcg,thread=multi", "-smp 4,maxcpus=8", "-no-reboot", "hostfwd=tcp:127.0.0.1:2222-:22", "restrict=on", "-device pvpanic", "panic=-1", "foo=1", "-serial file:/dev/fd/3", "-qmp unix:/d/qmp.sock"} {
		if !strings.Contains(a, want) {
			t.Errorf("args lack %q: %s", want, a)
		}
	}
	s.Accel = "kvm"
	if a := strings.Join(s.Args(), " "); !strings.Contains(a, "-accel kvm") || !strings.Contains(a, "-cpu host") {
		t.Errorf("kvm args: %s", a)
	}
}

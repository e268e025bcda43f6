package vm

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kregress/kregress/internal/lines"
)

// InitMarker is what the guest's init prints once userspace runs.
const InitMarker = "kregress-init: up"

// AccelChoice is the accelerator a run uses and why.
type AccelChoice struct {
	Accel  string // "kvm" or "tcg"
	Reason string
}

// ChooseAccel resolves "auto", "kvm" or "tcg". For auto, KVM is used only
// when a probe guest (the given kernel and initrd, one vCPU) reaches its
// init under KVM: a /dev/kvm that exists can still be unable to run an
// ordinary kernel (a paravirtual KVM such as kvm_pvm fails with "KVM
// internal error ... emulation failure").
func ChooseAccel(ctx context.Context, want string, probe Spec) (AccelChoice, error) {
	switch want {
	case "tcg":
		return AccelChoice{"tcg", "configured"}, nil
	case "kvm":
		return AccelChoice{"kvm", "configured"}, nil
	case "", "auto":
	default:
		return AccelChoice{}, fmt.Errorf("vm: accel %q: want auto, kvm or tcg", want)
	}
	if why := KVMUnusable(); why != "" {
		return AccelChoice{"tcg", why}, nil
	}
	probe.Accel = "kvm"
	probe.CPUs, probe.MaxCPUs = 1, 0
	if probe.MemoryMB == 0 {
		probe.MemoryMB = 256
	}
	in, err := Start(ctx, probe)
	if err != nil {
		return AccelChoice{"tcg", fmt.Sprintf("KVM probe did not start: %v", err)}, nil
	}
	defer in.Shutdown(context.Background())
	// The probe kernel reaches init in about a second under TCG; under
	// working KVM 20 s is ample, and a broken KVM often hangs silently.
	deadline := time.After(20 * time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-in.Done():
			why := strings.TrimSpace(in.stderr.String())
			if i := strings.Index(why, "KVM internal error"); i >= 0 {
				why = lines.First(why[i:])
			}
			return AccelChoice{"tcg", "KVM probe guest died: " + probeMessage(why)}, nil
		case <-deadline:
			return AccelChoice{"tcg", "KVM probe guest did not reach init within 20s"}, nil
		case <-ctx.Done():
			return AccelChoice{}, ctx.Err()
		case <-tick.C:
			data, _ := os.ReadFile(in.ConsolePath())
			if strings.Contains(string(data), InitMarker) {
				return AccelChoice{"kvm", "KVM probe guest reached init"}, nil
			}
			if in.Panicked() {
				return AccelChoice{"tcg", "KVM probe guest panicked"}, nil
			}
		}
	}
}

// probeMessage is the first line of what a dead probe guest's QEMU
// printed, or says it printed nothing.
func probeMessage(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	if s == "" {
		return "(no message)"
	}
	return s
}

// KVMUnusable says why KVM cannot run an ordinary kernel on this host,
// as far as is known without booting one, or "" when it may (only a
// probe guest, as ChooseAccel boots, tells for sure).
func KVMUnusable() string {
	return kvmUnusable(func() error {
		f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
		if err == nil {
			f.Close()
		}
		return err
	}, func(path string) bool { _, err := os.Stat(path); return err == nil })
}

func kvmUnusable(openKVM func() error, exists func(string) bool) string {
	// kvm_pvm serves /dev/kvm (when it is there) but runs only
	// PVM-enabled guests: an ordinary kernel hangs or dies with an
	// emulation failure. Known without a probe.
	pvm := exists("/sys/module/kvm_pvm")
	if err := openKVM(); err != nil {
		if pvm {
			return fmt.Sprintf("/dev/kvm unusable (%v); the loaded KVM module is kvm_pvm (paravirtual KVM), which cannot run an ordinary kernel", err)
		}
		return fmt.Sprintf("/dev/kvm unusable (%v)", err)
	}
	if pvm {
		return "/dev/kvm is kvm_pvm (paravirtual KVM), which cannot run an ordinary kernel"
	}
	return ""
}

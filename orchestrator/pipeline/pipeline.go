// Package pipeline runs an experiment: build every variant's kernel (from
// the cache when it can), build the guest image, choose the accelerator,
// then run the cells interleaved and store each result the moment it ends.
// A Ctrl-C stores the cell in flight as incomplete and the run as
// interrupted; nothing completed is lost.
package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/orchestrator/vm"
	"github.com/kregress/kregress/patches"
	"github.com/kregress/kregress/results"
	"github.com/kregress/kregress/results/verdict"
)

// Prepared is everything the cells need, built before the first boot.
type Prepared struct {
	Family   *patches.Family
	Variants []VariantBuild // baseline first
	Image    *initramfs.Image
	Accel    vm.AccelChoice
	AgentCmd string
	// SelftestCmd runs the cgroup selftests in a guest; empty when the
	// config turns them off.
	SelftestCmd string
	// TargetTests are the tests of the experiment's kselftest targets
	// (collection:program) that SelftestCmd runs besides its binaries.
	TargetTests []string
}

// Names lists the prepared variants in order.
func (p *Prepared) Names() []string {
	var n []string
	for _, v := range p.Variants {
		n = append(n, v.Name)
	}
	return n
}

// Prepare checks the plan (Preflight), builds every selected variant's
// kernel and the image, and chooses the accelerator. Nothing is stored
// yet.
func Prepare(ctx context.Context, cfg *config.Config, sel *variants.Selection, report progress.Reporter) (*Prepared, error) {
	plans, err := Plan(ctx, cfg, sel)
	if err != nil {
		return nil, err
	}
	// Before the selftests, the image and the first kernel: a candidate
	// that does not fit the tree is refused now, not after the
	// baseline's cold build.
	if err := Preflight(ctx, cfg, sel.Family, plans, report); err != nil {
		return nil, err
	}
	ReportTargetFragments(plans, report)
	fam := sel.Family
	agentCmd, err := AgentCommand(cfg.Workload)
	if err != nil {
		return nil, err
	}
	img, selftestCmd, targetTests, err := buildImage(ctx, cfg, sel, report)
	if err != nil {
		return nil, err
	}

	host := HostInfo()
	p := &Prepared{Family: fam, Image: img, AgentCmd: agentCmd, SelftestCmd: selftestCmd, TargetTests: targetTests}
	for _, plan := range plans {
		v := plan.Variant
		k, err := BuildKernel(ctx, cfg, plan, report)
		if err != nil {
			return nil, buildFailure(ctx, v.Name, v.Name == fam.Baseline, err)
		}
		cmdline := strings.TrimSpace(cfg.VM.Cmdline + " " + v.Cmdline)
		if len(plan.Request.Harness) > 0 {
			cmdline += " kregress_hotplug_lapics"
		}
		if cfg.VM.PanicOnWarn {
			cmdline += " panic_on_warn=1"
		}
		spec := vm.Spec{
			QEMU: cfg.VM.QEMU, Kernel: k.BzImage, Initrd: img.Path,
			Cmdline: cmdline,
			CPUs:    cfg.VM.CPUs, MaxCPUs: cfg.VM.MaxCPUs, MemoryMB: cfg.VM.MemoryMB,
			ICount: cfg.VM.ICountRequired(), ICountShift: cfg.VM.ICountShift,
		}
		p.Variants = append(p.Variants, VariantBuild{Name: v.Name, Spec: spec, Provenance: results.Provenance{
			SourceID: k.SourceID, KernelKey: k.Key, Patches: k.Patches, PatchSHA256s: k.PatchSHA256,
			PatchDetails: patchDetails(plan.Request.Patches()), GitCommit: k.GitCommit, GitDescribe: k.GitDescribe, Dirty: k.Dirty,
			ApplyOffsets: k.Offsets,
			TreeChecks:   k.Checks, ConfigSHA256: k.ConfigSHA256, Preemption: k.Preemption, BaseConfig: k.BaseConfig, Compiler: k.Compiler,
			ImageKey: img.Key, HostCPU: host.CPUModel, HostCores: host.Cores,
			Workload: cfg.Workload.Name, WorkloadArgs: agentCmd,
		}})
	}
	probe := p.Variants[0].Spec
	probe.Dir = filepath.Join(cfg.CacheDir, "accel-probe")
	want := cfg.VM.Accel
	if cfg.VM.ICountRequired() {
		want = "tcg" // validation refused kvm; auto means tcg here
	}
	p.Accel, err = vm.ChooseAccel(ctx, want, probe)
	if err != nil {
		return nil, err
	}
	report("accelerator: %s (%s)", p.Accel.Accel, p.Accel.Reason)
	icount := cfg.VM.ICountUnder(p.Accel.Accel)
	for i := range p.Variants {
		p.Variants[i].Spec.Accel = p.Accel.Accel
		p.Variants[i].Spec.ICount = icount
		p.Variants[i].Provenance.AccelReason = p.Accel.Reason
	}
	report("guest clock: %s (%s)", p.Variants[0].Spec.Clock(), ClockReason(cfg.VM.Clock, p.Accel.Accel))
	if icount && (len(cfg.Workload.LockContention) > 0 || len(cfg.Workload.LockContentionUnder) > 0) {
		report("note: lock contention waits under the icount clock measure QEMU's turn-taking, not the kernel: one host thread runs the vCPUs one at a time, so a waiter spins only when the holder's vCPU is switched out mid-hold; vm.clock: host measures contention between vCPUs that run in parallel")
	}
	return p, nil
}

// ClockReason says why guests under accel keep the time they do with
// vm.clock set to c.
func ClockReason(c config.Clock, accel string) string {
	switch {
	case c == config.ClockHost:
		return "vm.clock host: timings include how busy the host was"
	case c == config.ClockICount:
		return "vm.clock icount: guest time counts instructions, whatever the host's load"
	case accel == "kvm":
		return "vm.clock auto under KVM: real time (icount exists only under TCG)"
	}
	return "vm.clock auto under TCG: guest time counts instructions, so timings do not move with the host's load"
}

// buildFailure is the error of variant's kernel build that failed with
// err: a BaselineBuildError for the baseline (exit 4: nothing can be
// measured against it), unless ctx was cancelled, since a build stopped
// by Ctrl-C says nothing about the kernel: that is an interruption.
func buildFailure(ctx context.Context, variant string, baseline bool, err error) error {
	if baseline && ctx.Err() == nil {
		return &BaselineBuildError{Variant: variant, Err: err}
	}
	return fmt.Errorf("variant %s: %w", variant, err)
}

// BaselineBuildError: the baseline's kernel could not be built, so the
// run cannot measure anything against it.
type BaselineBuildError struct {
	Variant string
	Err     error
}

func (e *BaselineBuildError) Error() string {
	return fmt.Sprintf("the baseline %s could not be built: %v", e.Variant, e.Err)
}

func (e *BaselineBuildError) Unwrap() error { return e.Err }

// ExitStatus is BaselineFailed's.
func (e *BaselineBuildError) ExitStatus() verdict.Exit { return verdict.BaselineFailed.Exit() }

// patchDetails is what provenance keeps of each applied patch.
func patchDetails(ps []*patches.Patch) []results.PatchInfo {
	var out []results.PatchInfo
	for _, p := range ps {
		out = append(out, results.PatchInfo{Name: p.Name, SHA256: p.SHA256, Subject: p.Subject, Author: p.Author, MessageID: p.MessageID})
	}
	return out
}

package pipeline

import (
	"context"
	"fmt"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// BuildPlan is one variant's kernel: what would be built and whether the
// cache already has it.
type BuildPlan struct {
	Variant *patches.Variant
	Request kernel.Request
	Source  string // for humans: the tree and ref, or the tarball
	Key     string
	Cached  bool
}

// Plan turns the selected variants into build requests (the harness goes
// under every variant when vm.max_cpus > vm.cpus) and looks each up in
// the cache. It builds nothing.
func Plan(ctx context.Context, cfg *config.Config, sel *variants.Selection) ([]BuildPlan, error) {
	if sel.Family.Workload != cfg.Workload.Name {
		return nil, fmt.Errorf("family %s is measured with workload %q, config asks for %q", sel.Family.Name, sel.Family.Workload, cfg.Workload.Name)
	}
	// The targets' fragments first: appended to .config, a later
	// assignment wins, so kregress's own fragments (what the guest needs)
	// win a conflict. Read once from the base tree, like the gate
	// itself: every variant gets the same ones.
	frags, err := TargetFragments(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, f := range cfg.Kernel.Fragments {
		data, err := kernel.FragmentData(f)
		if err != nil {
			return nil, err
		}
		frags = append(frags, kernel.Fragment{Name: f, Data: data})
	}
	var harness []*patches.Patch
	if cfg.VM.MaxCPUs > cfg.VM.CPUs {
		// Under TCG the hotplug slots count as possible CPUs only with
		// the harness patch (patches/harness); every variant gets it.
		harness = sel.Family.Harness
	}
	b := builder(cfg, nil)
	var plans []BuildPlan
	for _, v := range sel.Variants {
		src, err := VariantSource(cfg.Kernel, v)
		if err != nil {
			return nil, err
		}
		req := kernel.Request{Source: src, Family: sel.Family.Name, Variant: v, Harness: harness,
			BaseConfig: cfg.Kernel.BaseConfig, Fragments: frags, Fuzz: cfg.Kernel.Fuzz, AllowSymlinks: cfg.Kernel.AllowSymlinks}
		key, cached, err := b.Lookup(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", v.Name, err)
		}
		plans = append(plans, BuildPlan{Variant: v, Request: req, Source: src.String(), Key: key, Cached: cached})
	}
	return plans, nil
}

// TargetFragments are the config fragments of cfg's kselftest targets
// (selftests.Targets' files), checked as outside input
// (kernel.CheckTreeFragment) and marked Wanted; none when
// cfg.Selftests.MergeTargetConfigs is false. They come from the base
// tree, the one the gate's targets are built from, whatever tree a
// variant is built from, so every variant gets the same fragments.
func TargetFragments(ctx context.Context, cfg *config.Config) ([]kernel.Fragment, error) {
	if !cfg.Selftests.MergeTargetConfigs() {
		return nil, nil
	}
	src, err := Source(cfg.Kernel)
	if err != nil {
		return nil, err
	}
	tree, _, err := builder(cfg, nil).Pristine(ctx, src)
	if err != nil {
		return nil, err
	}
	files, err := selftests.TargetConfigs(ctx, tree, cfg.Selftests.Targets, kernel.MaxTreeFragment)
	if err != nil {
		return nil, err
	}
	var frags []kernel.Fragment
	for _, f := range files {
		if err := kernel.CheckTreeFragment(f.File, f.Data); err != nil {
			return nil, fmt.Errorf("selftests.targets: kselftest target %s (selftests.target_configs: off builds without the targets' fragments): %w", f.Target, err)
		}
		frags = append(frags, kernel.Fragment{Name: "kselftest target " + f.Target + " (" + f.File + ")", Data: f.Data, Wanted: true})
	}
	return frags, nil
}

// ReportTargetFragments says which kselftest targets' fragments go into
// the kernels (every plan has the same ones).
func ReportTargetFragments(plans []BuildPlan, report progress.Reporter) {
	if len(plans) == 0 {
		return
	}
	for _, f := range plans[0].Request.Fragments {
		if f.Wanted {
			report.Printf("kernel config: %s merged into every variant's kernel (%d option(s); selftests.target_configs: off builds without)", f.Name, len(kernel.ParseConfig(f.Data)))
		}
	}
}

func builder(cfg *config.Config, report progress.Reporter) *kernel.Builder {
	return &kernel.Builder{CacheDir: cfg.CacheDir, Jobs: cfg.Kernel.Jobs, CCache: cfg.Kernel.CCache, Progress: report}
}

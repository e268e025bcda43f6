package session

import (
	"context"
	"io"
	"strings"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/format"
)

// WriteConfig writes what `kregress config` prints: cfg's YAML with every
// key (CommentedYAML), then the variants sel measures and their patches
// (Preview) as YAML comments, so that the whole stays a valid experiment
// file.
func WriteConfig(w io.Writer, cfg *config.Config, sel *variants.Selection) error {
	var b strings.Builder
	format.WriteSelection(&b, Preview(cfg, sel, nil))
	text := cfg.CommentedYAML() + "\n"
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		text += "# " + l + "\n"
	}
	_, err := io.WriteString(w, text)
	return err
}

// Preview is what cfg's experiment measures (sel), as format shows it:
// with plans (Plans, one per variant), also the kernel each would build.
func Preview(cfg *config.Config, sel *variants.Selection, plans []pipeline.BuildPlan) format.Selection {
	fam := sel.Family
	p := format.Selection{Experiment: cfg.Experiment, Family: fam.Name, Description: fam.Description, Workload: cfg.Workload.Name, Repetitions: cfg.Repetitions, CPUs: cfg.VM.CPUs, CPUsSweep: cfg.SweepCounts()}
	for i, v := range sel.Variants {
		sv := format.SelectedVariant{Name: v.Name, Baseline: v.Name == fam.Baseline, Source: "the configured base", Patches: v.Files, Cmdline: v.Cmdline}
		if v.Ref != "" {
			sv.Source = "ref " + v.Ref + " of " + cfg.Kernel.GitTree
		}
		if plans != nil {
			k := planned(plans[i])
			sv.Kernel = &k
		}
		p.Variants = append(p.Variants, sv)
	}
	return p
}

func planned(p pipeline.BuildPlan) format.PlannedKernel {
	return format.PlannedKernel{Source: p.Source, Key: p.Key, Cached: p.Cached, Harness: p.Request.Harness}
}

// DryRun prints what kregress run would measure and build, and builds
// nothing, after every check the run makes that needs no build (Plans:
// every variant's patches applied in a scratch copy onto its source,
// with their paths, symlinks and expectations); with the debug pass, also
// the kernels it would build. What the user must fix exits 2, as with
// run.
func (s *Session) DryRun(ctx context.Context, w io.Writer, cfg *config.Config, sel *variants.Selection) error {
	plans, err := s.Plans(ctx, cfg, sel)
	if err != nil {
		return err
	}
	pipeline.ReportTargetFragments(plans, s.Report)
	format.WriteSelection(w, Preview(cfg, sel, plans))
	if !s.DebugWanted(cfg, sel) {
		if s.debugLeftOut(cfg, sel) {
			format.WriteNoDebugPass(w)
		}
		return nil
	}
	dplans, err := DebugPlans(ctx, cfg, sel)
	if err != nil {
		return err
	}
	var kernels []format.DebugKernel
	for i, v := range sel.Variants {
		kernels = append(kernels, format.DebugKernel{Variant: v.Name, Kernel: planned(dplans[i])})
	}
	format.WriteDebugPlans(w, cfg.Debug.Pass, cfg.Debug.Fragments, kernels)
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// addSourceFlags adds quick mode's --patch and the old spellings of the
// workload and patch-strictness keys (after addConfigFlags).
func addSourceFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArray("patch", nil, "quick mode: measure the base against base + this series; repeat for more (a diff, a git format-patch file, an mbox, a directory of *.patch, or a quilt series file)")
	deprecatedAlias(f, "workload", config.FlagFor("workload.name"))
	deprecatedAlias(f, "fuzz", config.FlagFor("kernel.fuzz"))
	deprecatedAlias(f, "allow-dirty", config.FlagFor("kernel.allow_dirty"))
}

// resolveSelection applies the source flags to cfg and resolves the
// family and variants to measure (variants.Select).
func resolveSelection(cmd *cobra.Command, cfg *config.Config) (*variants.Selection, error) {
	var paths []string
	if f := cmd.Flags(); f.Lookup("patch") != nil && f.Changed("patch") {
		paths, _ = f.GetStringArray("patch")
	}
	return variants.Select(cfg, paths, configFile != "")
}

// loadSelection loads the configuration (load) and resolves what it
// measures (resolveSelection): the start of build and config, which
// need nothing checked in between.
func loadSelection(cmd *cobra.Command) (*config.Config, *variants.Selection, error) {
	cfg, err := load(cmd)
	if err != nil {
		return nil, nil, err
	}
	sel, err := resolveSelection(cmd, cfg)
	if err != nil {
		return nil, nil, err
	}
	return cfg, sel, nil
}

// printSelection shows the variants an experiment measures and their
// patches; with plans, also the kernel each would build.
func printSelection(w io.Writer, cfg *config.Config, sel *variants.Selection, plans []pipeline.BuildPlan) {
	fam := sel.Family
	fmt.Fprintf(w, "experiment %s: family %s, workload %s, %d repetition(s) per variant, %d vCPUs", cfg.Experiment, fam.Name, cfg.Workload.Name, cfg.Repetitions, cfg.VM.CPUs)
	if fam.Description != "" {
		fmt.Fprintf(w, "\n  %s", strings.Join(strings.Fields(fam.Description), " "))
	}
	fmt.Fprintln(w)
	for i, v := range sel.Variants {
		role := "candidate"
		if v.Name == fam.Baseline {
			role = "baseline"
		}
		src := "the configured base"
		if v.Ref != "" {
			src = "ref " + v.Ref + " of " + cfg.Kernel.GitTree
		}
		fmt.Fprintf(w, "\n%s (%s): %s", v.Name, role, src)
		if len(v.Files) > 0 {
			fmt.Fprintf(w, " + %d patch(es)", len(v.Files))
		}
		if v.Cmdline != "" {
			fmt.Fprintf(w, ", cmdline %q", v.Cmdline)
		}
		fmt.Fprintln(w)
		if plans != nil {
			p := plans[i]
			fmt.Fprintf(w, "  source: %s\n  kernel: %s (%s)\n", p.Source, p.Key, buildState(p))
			if len(p.Request.Harness) > 0 {
				fmt.Fprintf(w, "  harness: %s (vm.max_cpus > vm.cpus)\n", patchNames(p.Request.Harness))
			}
		}
		for j, p := range v.Files {
			fmt.Fprintf(w, "  %d. %s\n", j+1, p.Name)
			if p.Subject != "" {
				fmt.Fprintf(w, "     %q by %s", p.Subject, p.Author)
				if p.MessageID != "" {
					fmt.Fprintf(w, " <%s>", p.MessageID)
				}
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "     files: %s\n", strings.Join(p.Files, " "))
		}
	}
}

func patchNames(ps []*patches.Patch) string {
	var n []string
	for _, p := range ps {
		n = append(n, p.Name)
	}
	return strings.Join(n, ", ")
}

// dryRun prints what run would measure and build, and builds nothing,
// after every check run makes that needs no build (session.Preflight:
// every variant's patches applied in a scratch copy onto its source, with
// their paths, symlinks and expectations). What the user must fix exits
// 2, as with run.
func dryRun(ctx context.Context, w io.Writer, sess *session.Session, cfg *config.Config, sel *variants.Selection, plans []pipeline.BuildPlan) error {
	printSelection(w, cfg, sel, plans)
	if !sess.DebugWanted(cfg, sel) {
		return nil
	}
	dplans, err := session.DebugPlans(ctx, cfg, sel)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\ndebug pass (debug.pass %s): every variant again with %s, one boot each\n", cfg.Debug.Pass, strings.Join(cfg.Debug.Fragments, ", "))
	for i, v := range sel.Variants {
		fmt.Fprintf(w, "  %s: kernel %s (%s)\n", v.Name, dplans[i].Key, buildState(dplans[i]))
	}
	return nil
}

// buildState says whether a planned kernel is in the cache.
func buildState(p pipeline.BuildPlan) string {
	if p.Cached {
		return "cached"
	}
	return "to build"
}

package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/results/format"
)

// addSourceFlags adds quick mode's --patch and the old spellings of the
// workload and patch-strictness keys (after addConfigFlags).
func addSourceFlags(cmd *cobra.Command) {
	cmd.Flags().StringArray("patch", nil, "quick mode: measure the base against base + this series; repeat for more (a diff, a git format-patch file, an mbox, a directory of *.patch, or a quilt series file)")
	deprecatedAlias(cmd.Flags(), "workload", config.FlagFor("workload.name"))
	deprecatedAlias(cmd.Flags(), "fuzz", config.FlagFor("kernel.fuzz"))
	deprecatedAlias(cmd.Flags(), "allow-dirty", config.FlagFor("kernel.allow_dirty"))
}

// resolveSelection applies the source flags to cfg and resolves the
// family and variants to measure (variants.Select).
func resolveSelection(cmd *cobra.Command, cfg *config.Config) (*variants.Selection, error) {
	// No --patch (or a command without it) is no paths: quick mode is off.
	paths, _ := cmd.Flags().GetStringArray("patch")
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
// patches (format.WriteSelection); with plans, also the kernel each
// would build.
func printSelection(w io.Writer, cfg *config.Config, sel *variants.Selection, plans []pipeline.BuildPlan) {
	format.WriteSelection(w, session.Preview(cfg, sel, plans))
}

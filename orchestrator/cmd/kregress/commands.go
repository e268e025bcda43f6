package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/pipeline"
	"github.com/kregress/kregress/orchestrator/session"
	"github.com/kregress/kregress/orchestrator/variants"
)

func newBuild() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "build",
		Args:  cobra.NoArgs,
		Short: "build (or find cached) the kernels and the guest image of an experiment, without booting",
		Example: `  kregress build                          # the default experiment's kernels
  kregress build --patch 0001-my-fix.patch  # base and base + my patch`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, sel, err := loadSelection(cmd)
			if err != nil {
				return err
			}
			ctx, cancel := signalContext()
			defer cancel()
			return pipeline.BuildOnly(ctx, cfg, sel, reporter(cmd), cmd.OutOrStdout())
		},
	}
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addBenchmarkHostFlags(cmd)
	return cmd
}

func newConfig() *cobra.Command {
	cmd := &cobra.Command{
		Use:  "config",
		Args: cobra.NoArgs, // config a b c printed the default and ignored a b c
		Example: `  kregress config                        # the built-in default, resolved
  kregress config -c my.yaml --vm.cpus 4 # what run would use, every key listed`,
		Short: "print the resolved configuration (defaults + file + env + flags), every key, and the variants it measures",
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, sel, err := loadSelection(cmd)
			if err != nil {
				return err
			}
			return printJSONOr(cmd, sel.Document(cfg), func(w io.Writer) error { return session.WriteConfig(w, cfg, sel) })
		},
	}
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addExecutorFlags(cmd, true)
	jsonFlagBeside(cmd, "yaml", "the YAML")
	return cmd
}

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
	return cfg, sel, err
}

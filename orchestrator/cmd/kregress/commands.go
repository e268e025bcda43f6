package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/pipeline"
)

func newBuild() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "build",
		Short: "build (or find cached) the kernels and the guest image of an experiment, without booting",
		Example: `  kregress build                          # the default experiment's kernels
  kregress build --patch 0001-my-fix.patch  # base and base + my patch`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, sel, err := loadSelection(cmd)
			if err != nil {
				return err
			}
			rep := reporter(cmd)
			ctx, cancel := signalContext()
			defer cancel()
			out := cmd.OutOrStdout()
			return pipeline.BuildOnly(ctx, cfg, sel, rep, func(path string) { fmt.Fprintf(out, "image\t%s\n", path) }, func(k pipeline.BuiltKernel) {
				fmt.Fprintf(out, "%s\t%s\tcached=%v\t%.1fs\n", k.Variant, k.BzImage, k.Cached, k.Took.Seconds())
			})
		},
	}
	addConfigFlags(cmd)
	addSourceFlags(cmd)
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
			if wantJSON(cmd) {
				return writeJSON(cmd.OutOrStdout(), sel.Document(cfg))
			}
			fmt.Fprintln(cmd.OutOrStdout(), cfg.CommentedYAML())
			var b strings.Builder
			printSelection(&b, cfg, sel, nil)
			for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintln(cmd.OutOrStdout(), "#", l)
			}
			return nil
		},
	}
	addConfigFlags(cmd)
	addSourceFlags(cmd)
	addExecutorFlags(cmd, true)
	jsonFlagBeside(cmd, "yaml", "the YAML")
	return cmd
}

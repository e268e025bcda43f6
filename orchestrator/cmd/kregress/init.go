package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/starter"
)

func newInit() *cobra.Command {
	var (
		patchPaths                []string
		gitTree, baseRef, candRef string
		workload, name            string
	)
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "write a commented starter experiment file for your patches or your git tree (never overwrites)",
		Long: `init writes FILE (default experiment.yaml): an experiment with one family of
two variants, "base" (the baseline) and "patched", which kregress run -c
FILE measures. With --patch, patched is base + those patches (paths are
written relative to FILE); with --kernel.git-tree, the kernel comes from your
tree, base at --base (default HEAD) and patched at --candidate (default:
the base) plus any --patch. The file is commented; edit it, then check it with
kregress run -c FILE --dry-run. An existing FILE is never overwritten.`,
		Example: `  kregress init --patch 0001-my-fix.patch
  kregress init my.yaml --kernel.git-tree ~/linux --base v6.12 --candidate my-branch
  kregress init --patch outgoing/ --workload.name execve`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := starter.DefaultFile
			if len(args) == 1 {
				file = args[0]
			}
			what, err := starter.Write(starter.Spec{File: file, Patches: patchPaths, GitTree: gitTree, BaseRef: baseRef, CandRef: candRef, Workload: workload, Name: name})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s\ncheck it: kregress run -c %s --dry-run\n", file, what, file)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&patchPaths, "patch", nil, "a patch (diff, git format-patch file, mbox, directory of *.patch, quilt series) for the patched variant; repeat for more")
	cmd.Flags().StringVar(&gitTree, config.FlagFor("kernel.git_tree"), "", "your kernel git repository: the variants are refs of it")
	cmd.Flags().StringVar(&baseRef, "base", "", "with --kernel.git-tree: the baseline's ref (default HEAD)")
	cmd.Flags().StringVar(&candRef, "candidate", "", "with --kernel.git-tree: the patched variant's ref (default: the base, plus --patch)")
	cmd.Flags().StringVar(&workload, config.FlagFor("workload.name"), "rstat", "the workload: "+strings.Join(metrics.Workloads(), ", "))
	cmd.Flags().StringVar(&name, "name", "", "the experiment's name (default: FILE without its extension)")
	return cmd
}

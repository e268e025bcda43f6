package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/rstat"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/doctor"
	"github.com/kregress/kregress/orchestrator/starter"
)

// doctorEnv is the host doctor checks; tests replace it with a fake.
var doctorEnv doctor.Env = doctor.Host{}

func newDoctor() *cobra.Command {
	var up doctor.Checkup
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "check this host can run kregress: QEMU, KVM (or why TCG), packages, kernel source, disk, cache, store",
		Long: `doctor checks what a run needs, for the configuration given (-c and flags):
QEMU (vm.qemu), whether KVM can run a guest here or why guests will run
under TCG, the Debian packages a kernel build needs, the kernel source,
the agent and busybox the guest image is made of, free disk space for
cache_dir, the cache's size, and whether the results store can be read.

A line is printed as each check ends, each problem and warning with what
fixes it. A problem (FAIL) means a run would fail: doctor exits 1. A warning
(WARN: no KVM, so guests run under TCG; little disk left) means kregress
runs, less well: counted apart, exit 0 unless --strict. The store check
creates the store's directory as a first run would (and removes it again).`,
		Example: `  kregress doctor
  kregress doctor --store postgres://team@db/kregress
  kregress doctor --strict --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			up.Env, up.Settings, up.JSON = doctorEnv, doctor.SettingsFor(cfg), wantJSON(cmd)
			return up.Report(cmd.OutOrStdout())
		},
	}
	jsonFlag(cmd)
	addConfigFlags(cmd)
	cmd.Flags().BoolVar(&up.Strict, "strict", false, "exit 1 on a warning too (no usable KVM, little disk left)")
	return cmd
}

func newInit() *cobra.Command {
	var spec starter.Spec
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "write a commented starter experiment file for your patches or your git tree (never overwrites)",
		Long: `init writes FILE (default experiment.yaml): an experiment with one family of
two variants, "base" (the baseline) and "patched", which kregress run -c
FILE measures. With --patch, patched is base + those patches (paths are
written relative to FILE); with --kernel.git-tree, the kernel comes from your
tree, base at --base (default HEAD) and patched at --candidate (default:
the base) plus any --patch; each ref is checked as the dry run checks it,
and one the tree does not have is refused (exit 2), writing nothing. The
file is commented; edit it, then check it with kregress run -c FILE
--dry-run. An existing FILE is never overwritten.`,
		Example: `  kregress init --patch 0001-my-fix.patch
  kregress init my.yaml --kernel.git-tree ~/linux --base v6.12 --candidate my-branch
  kregress init --patch outgoing/ --workload.name execve`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec.File = starter.DefaultFile
			if len(args) == 1 {
				spec.File = args[0]
			}
			return starter.Create(cmd.OutOrStdout(), spec)
		},
	}
	cmd.Flags().StringArrayVar(&spec.Patches, "patch", nil, "a patch (diff, git format-patch file, mbox, directory of *.patch, quilt series) for the patched variant; repeat for more")
	cmd.Flags().StringVar(&spec.GitTree, config.FlagFor("kernel.git_tree"), "", "your kernel git repository: the variants are refs of it")
	cmd.Flags().StringVar(&spec.BaseRef, "base", "", "with --kernel.git-tree: the baseline's ref (default HEAD)")
	cmd.Flags().StringVar(&spec.CandRef, "candidate", "", "with --kernel.git-tree: the patched variant's ref (default: the base, plus --patch)")
	cmd.Flags().StringVar(&spec.Workload, config.FlagFor("workload.name"), rstat.Name, "the workload: "+strings.Join(workload.Sorted(), ", "))
	cmd.Flags().StringVar(&spec.Name, "name", "", "the experiment's name (default: FILE without its extension)")
	return cmd
}

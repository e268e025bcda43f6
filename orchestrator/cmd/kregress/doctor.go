package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/orchestrator/doctor"
	"github.com/kregress/kregress/results/verdict"
)

// doctorEnv is the host doctor checks; tests replace it with a fake.
var doctorEnv doctor.Env = doctor.Host{}

func newDoctor() *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "check this host can run kregress: QEMU, KVM (or why TCG), packages, kernel source, disk, cache, store",
		Long: `doctor checks what a run needs, for the configuration given (-c and flags):
QEMU (vm.qemu), whether KVM can run a guest here or why guests will run
under TCG, the Debian packages a kernel build needs, the kernel source,
the agent and busybox the guest image is made of, free disk space for
cache_dir, the cache's size, and whether the results store can be read.

Each problem is printed with what fixes it. It exits 1 when a check
fails (a run would fail), 0 otherwise; with --strict, a warning (no KVM:
guests run under TCG; little disk left) exits 1 too.`,
		Example: `  kregress doctor
  kregress doctor --store postgres://team@db/kregress
  kregress doctor --strict --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := load(cmd)
			if err != nil {
				return err
			}
			checks := doctor.Run(doctorEnv, doctor.SettingsFor(cfg))
			write := doctor.Write
			if wantJSON(cmd) {
				write = func(w io.Writer, checks []doctor.Check) error { return writeJSON(w, checks) }
			}
			if err := write(cmd.OutOrStdout(), checks); err != nil {
				return err
			}
			if doctor.Failed(checks, strict) {
				return verdict.ExitError(verdict.ExitFailure)
			}
			return nil
		},
	}
	jsonFlag(cmd)
	addConfigFlags(cmd)
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 on a warning too (no usable KVM, little disk left)")
	return cmd
}

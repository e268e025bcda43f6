package pipeline

import (
	"context"
	"errors"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/patches"
)

// Preflight is every refusal a kernel can earn before anything is
// compiled, in one place:
//
//   - a benchmark workload's program and libraries are on the host, and
//     (host_dry_run) its output parses (checkBenchmark);
//   - every tree it unpacks is a kernel tree (checkTrees);
//   - the primary metric: a metric the experiment names that some
//     variant's tree cannot produce (a tracepoint no header of it
//     defines) is refused; the workload's own primary falls back to
//     its workload's FallbackPrimary, said and written into cfg;
//   - every variant's patches apply, and its expect: lines hold, on its
//     tree (a patch that does not is a *FitError naming the family, the
//     tree's version and the hunk).
//
// Prepare calls it before the image and the first kernel, so every mode
// that builds through it - run, run --resume, nightly, seeds, bisect's
// runs, the noise and debug passes - is checked alike and once; what
// builds without Prepare (run --dry-run, bisect's kernel-only builds,
// kregress build) calls it itself. Its error is either a refusal (the
// experiment does not fit the tree: Refused is true, exit 2) or a failure
// of the machine.
func Preflight(ctx context.Context, cfg *config.Config, fam *patches.Family, plans []BuildPlan, report progress.Reporter) error {
	if err := checkBenchmark(ctx, cfg, report); err != nil {
		return err
	}
	if err := checkTrees(ctx, builder(cfg, report), cfg, plans); err != nil {
		return err
	}
	if err := checkPrimary(ctx, cfg, plans, report); err != nil {
		return err
	}
	return checkPlans(ctx, cfg, fam, plans, report)
}

// Refused says err is one of Preflight's refusals: the experiment does
// not fit the tree (the user must change one of them; the CLI exits 2),
// not a failure of the machine.
func Refused(err error) bool {
	var up *UnmeasurablePrimaryError
	var re *kernel.RefusedError
	var nk *kernel.NotKernelTreeError
	var br *BenchmarkRefusedError
	return errors.As(err, &up) || errors.As(err, &re) || errors.As(err, &nk) || errors.As(err, &br)
}

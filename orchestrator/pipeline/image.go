package pipeline

import (
	"context"
	"slices"
	"strings"

	"github.com/kregress/kregress/images/initramfs"
	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/orchestrator/variants"
)

// buildImage builds the guest image every variant boots: kagent and
// busybox, the selftest gate (selftestGate), and the benchmark's files.
// It returns the image with the command that runs the gate and the
// kselftest targets' tests (both empty when cfg runs no selftests).
func buildImage(ctx context.Context, cfg *config.Config, sel *variants.Selection, report progress.Reporter) (img *initramfs.Image, selftestCmd string, targetTests []string, err error) {
	imgSpec := initramfs.Spec{Agent: cfg.Agent, Busybox: cfg.Busybox, CacheDir: cfg.CacheDir}
	if cfg.Selftests.Repetitions > 0 {
		imgSpec.Extra, selftestCmd, targetTests, err = selftestGate(ctx, cfg, sel, report)
		if err != nil {
			return nil, "", nil, err
		}
	}
	packed, err := benchmarkFiles(ctx, cfg)
	if err != nil {
		return nil, "", nil, err
	}
	// addFiles: a gate target and the benchmark may bring the same
	// library.
	imgSpec.Extra = addFiles(imgSpec.Extra, packed)
	img, err = initramfs.Build(imgSpec)
	if err != nil {
		return nil, "", nil, err
	}
	report("guest image %s (%s)", img.Key, img.Path)
	return img, selftestCmd, targetTests, nil
}

// selftestGate builds the selftest gate from the base tree, unpacked
// once: the cgroup selftests cfg names and its kselftest targets. It
// returns their image files, the command that runs them in a guest and
// the targets' tests; nothing when there is nothing to run.
func selftestGate(ctx context.Context, cfg *config.Config, sel *variants.Selection, report progress.Reporter) (files []initramfs.File, cmd string, targetTests []string, err error) {
	st := &cfg.Selftests
	if sel.SelftestsChosen && len(st.Binaries) == 0 && len(st.Targets) == 0 {
		return nil, "", nil, nil
	}
	src, err := Source(cfg.Kernel)
	if err != nil {
		return nil, "", nil, err
	}
	tree, id, err := builder(cfg, report).Pristine(ctx, src)
	if err != nil {
		return nil, "", nil, err
	}
	if !sel.SelftestsChosen {
		// The family's (or the default) list names tests of the newest
		// tree; keep those this tree has, and say which are not run.
		// Written into cfg: the stored configuration says what ran.
		have, missing, err := selftests.InTree(tree, st.Binaries)
		if err != nil {
			return nil, "", nil, err
		}
		if len(missing) > 0 {
			runs := "none of them"
			if len(have) > 0 {
				runs = strings.Join(have, " ")
			}
			avail, _ := selftests.Available(tree)
			report("selftests: %s not in %s (%s has: %s); the gate runs %s",
				strings.Join(missing, ", "), src, selftests.SuiteDir, strings.Join(avail, ", "), runs)
		}
		st.Binaries = have
	}
	if len(st.Binaries) == 0 && len(st.Targets) == 0 {
		return nil, "", nil, nil
	}
	compiler, err := kernel.Compiler(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	sb := &selftests.Builder{CacheDir: cfg.CacheDir, Progress: report}
	if len(st.Binaries) > 0 {
		suite, err := sb.Build(ctx, tree, id, compiler, st.Binaries)
		if err != nil {
			return nil, "", nil, err
		}
		files = suite.Files()
		report("cgroup selftests %s: %s", suite.Key, strings.Join(st.Binaries, " "))
	}
	if len(st.Targets) > 0 {
		targets, err := sb.BuildTargets(ctx, tree, id, compiler, st.Targets)
		if err != nil {
			return nil, "", nil, err
		}
		extra, err := sb.TargetFiles(targets)
		if err != nil {
			return nil, "", nil, err
		}
		for _, t := range targets {
			targetTests = append(targetTests, t.Tests...)
			report("kselftest target %s: %d tests (%s)", t.Name, len(t.Tests), strings.Join(t.Tests, " "))
			if t.Dynamic != "" {
				report("kselftest target %s: built dynamic, its loader and libraries copied in (%d files): %s", t.Name, len(t.Libraries), t.Dynamic)
			}
		}
		files = addFiles(files, extra)
	}
	if gate := slices.Concat(st.Binaries, targetTests); len(gate) > 0 {
		cmd = selftests.Command(gate, st.Timeout.D(), st.RerunFailures)
	}
	return files, cmd, targetTests, nil
}

// addFiles adds more to files, but not a second file at a path files has
// (bash, which the cgroup scripts and the targets' both bring).
func addFiles(files, more []initramfs.File) []initramfs.File {
	for _, f := range more {
		if !slices.ContainsFunc(files, func(g initramfs.File) bool { return g.Name == f.Name }) {
			files = append(files, f)
		}
	}
	return files
}

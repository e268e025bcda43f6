package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kregress/kregress/internal/progress"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/orchestrator/variants"
	"github.com/kregress/kregress/patches"
)

// FitError is a family variant whose patch does not apply to the chosen
// tree: it names the family, its declared kernels, the tree and its
// version, and the built-in families that fit that version. The refusal
// it wraps names the patch, the file and the hunk.
type FitError struct {
	Family  string
	Kernels patches.KernelRange
	Source  string
	Version kernel.Version
	Fitting []string // built-in families whose kernels fit the tree
	Err     *kernel.RefusedError
	// Quick: the family is quick mode's (--patch), the user's own patches
	// against the configured base; the advice is then about them, not
	// about quick mode or the built-in families.
	Quick bool
}

func (e *FitError) Error() string {
	if e.Quick {
		return fmt.Sprintf("your patches do not fit %s, version %s: %v\nrebase them onto this tree, point the base at the tree they were made for (kernel.git_tree and kernel.git_ref, or kernel.debian_package), or let context lines differ with --kernel.fuzz N (up to 3)",
			e.Source, e.Version, e.Err)
	}
	declared := ""
	if e.Kernels != "" {
		declared = fmt.Sprintf(" (its patches fit kernels %s)", e.Kernels)
	}
	fits := "no built-in family declares it"
	if len(e.Fitting) > 0 {
		fits = "built-in families that fit it: " + strings.Join(e.Fitting, ", ")
	}
	return fmt.Sprintf("family %s%s does not fit %s, version %s: %v\n%s; quick mode (--patch FILE) measures a patch of your own against this tree, and kernel.git_tree with a variant ref measures another tree",
		e.Family, declared, e.Source, e.Version, e.Err, fits)
}

func (e *FitError) Unwrap() error { return e.Err }

// checkPlans runs the builder's no-compile checks (kernel.Builder.Check)
// on every planned kernel with patches, expectations or a git source,
// before anything is built: a run must not build its baseline for half an
// hour and then find that a candidate's patch does not apply. A patch
// that does not apply becomes a *FitError. Part of Preflight.
func checkPlans(ctx context.Context, cfg *config.Config, fam *patches.Family, plans []BuildPlan, report progress.Reporter) error {
	b := builder(cfg, report)
	for _, p := range plans {
		_, git := p.Request.Source.(kernel.GitSource)
		if len(p.Request.Patches()) == 0 && len(p.Request.Variant.Expect) == 0 && !git {
			continue // nothing to apply or check: the pristine source itself
		}
		err := b.Check(ctx, p.Request)
		var re *kernel.RefusedError
		if errors.As(err, &re) {
			return fitError(ctx, b, p.Request.Source, fam, re)
		}
		if err != nil {
			return fmt.Errorf("variant %s: checking its patches: %w", p.Variant.Name, err)
		}
	}
	return nil
}

// fitError adds the family and the tree's version to a refusal whose
// patch does not apply or whose expectation fails; others are returned
// as they are.
func fitError(ctx context.Context, b *kernel.Builder, src kernel.Source, fam *patches.Family, re *kernel.RefusedError) error {
	var pe *kernel.PatchError
	var ee *kernel.ExpectError
	if !errors.As(re, &pe) && !errors.As(re, &ee) {
		return re
	}
	tree, _, err := b.Pristine(ctx, src)
	if err != nil {
		return re
	}
	v, err := kernel.TreeVersion(tree)
	if err != nil {
		return re
	}
	fe := &FitError{Family: fam.Name, Kernels: fam.Kernels, Source: src.String(), Version: v, Err: re, Quick: fam.Name == variants.QuickFamily}
	if m, err := patches.Load(); err == nil && !fe.Quick {
		for _, name := range m.Fitting(patches.Series{Major: v.Major, Minor: v.Minor}, "") {
			if name != fam.Name {
				fe.Fitting = append(fe.Fitting, fmt.Sprintf("%s (workload %s)", name, m.Families[name].Workload))
			}
		}
	}
	return fe
}

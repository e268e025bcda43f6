package format

import (
	"fmt"
	"io"
	"strings"

	"github.com/kregress/kregress/patches"
)

// Selection is what an experiment measures, as kregress run --dry-run
// and kregress config show it: its family and variants, each with its
// patches and, in a dry run, the kernel it would build.
type Selection struct {
	Experiment, Family, Description, Workload string
	Repetitions, CPUs                         int
	// CPUsSweep: the vCPU counts every variant is measured at
	// (vm.cpus_sweep); none: CPUs only.
	CPUsSweep []int
	Variants  []SelectedVariant
}

// SelectedVariant is one variant of a Selection.
type SelectedVariant struct {
	Name     string
	Baseline bool
	// Source says where its tree comes from, for humans: the configured
	// base, or a ref of a git tree.
	Source  string
	Patches []*patches.Patch
	Cmdline string
	// Kernel is the kernel it would build; nil when nothing was planned.
	Kernel *PlannedKernel
}

// PlannedKernel is a kernel a dry run would build (or find cached).
type PlannedKernel struct {
	Source, Key string
	Cached      bool
	// Harness are the harness patches applied under every variant
	// (vm.max_cpus > vm.cpus).
	Harness []*patches.Patch
}

// State says whether a planned kernel is in the cache.
func (k PlannedKernel) State() string {
	if k.Cached {
		return "cached"
	}
	return "to build"
}

// WriteSelection shows the variants an experiment measures and their
// patches, and each planned kernel.
func WriteSelection(w io.Writer, s Selection) {
	if len(s.CPUsSweep) > 0 {
		fmt.Fprintf(w, "experiment %s: family %s, workload %s, %d repetition(s) per variant and vCPU count, vCPU sweep %s", s.Experiment, s.Family, s.Workload, s.Repetitions, SweepCounts(s.CPUsSweep))
	} else {
		fmt.Fprintf(w, "experiment %s: family %s, workload %s, %d repetition(s) per variant, %d vCPUs", s.Experiment, s.Family, s.Workload, s.Repetitions, s.CPUs)
	}
	if s.Description != "" {
		fmt.Fprintf(w, "\n  %s", strings.Join(strings.Fields(s.Description), " "))
	}
	fmt.Fprintln(w)
	if n := len(s.CPUsSweep); n > 0 {
		fmt.Fprintf(w, "sweep: %d vCPU counts x %d variants x %d repetitions = %d cells (each count's variants compared at that count only)\n",
			n, len(s.Variants), s.Repetitions, n*len(s.Variants)*s.Repetitions)
	}
	for _, v := range s.Variants {
		role := "candidate"
		if v.Baseline {
			role = "baseline"
		}
		fmt.Fprintf(w, "\n%s (%s): %s", v.Name, role, v.Source)
		if len(v.Patches) > 0 {
			fmt.Fprintf(w, " + %d patch(es)", len(v.Patches))
		}
		if v.Cmdline != "" {
			fmt.Fprintf(w, ", cmdline %q", v.Cmdline)
		}
		fmt.Fprintln(w)
		if k := v.Kernel; k != nil {
			fmt.Fprintf(w, "  source: %s\n  kernel: %s (%s)\n", k.Source, k.Key, k.State())
			if len(k.Harness) > 0 {
				fmt.Fprintf(w, "  harness: %s (vm.max_cpus > vm.cpus)\n", patchNames(k.Harness))
			}
		}
		for j, p := range v.Patches {
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

// DebugKernel is a kernel the debug pass would build for a variant.
type DebugKernel struct {
	Variant string
	Kernel  PlannedKernel
}

// WriteDebugPlans shows the kernels of the correctness gate's debug pass
// (debug.pass pass, the variants built again with fragments) that a dry
// run would build.
func WriteDebugPlans(w io.Writer, pass string, fragments []string, kernels []DebugKernel) {
	fmt.Fprintf(w, "\ndebug pass (debug.pass %s): every variant again with %s, one boot each\n", pass, strings.Join(fragments, ", "))
	for _, k := range kernels {
		fmt.Fprintf(w, "  %s: kernel %s (%s)\n", k.Variant, k.Kernel.Key, k.Kernel.State())
	}
}

// Package variants resolves which kernel states an experiment measures: a
// family of the built-in patch set or of the user's patches directory,
// one defined in the experiment file itself, or quick mode's configured
// base against base + the user's series. It reads patches and checks
// names and paths; it builds and boots nothing.
package variants

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/names"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/selftests"
	"github.com/kregress/kregress/patches"
)

// QuickFamily is the family quick mode defines.
const QuickFamily = "quick"

// Selection is the family an experiment measures and the variants it
// runs, baseline first.
type Selection struct {
	Family   *patches.Family
	Variants []*patches.Variant
	// SelftestsChosen: the experiment named its selftests.binaries.
	// Otherwise the gate's list is the family's or every cgroup C test,
	// written for the newest tree, and the tests a tree does not have are
	// dropped (and said) rather than refused: 6.1 has no test_cpuset.
	SelftestsChosen bool
}

// Variant returns the measured variant called name, or nil.
func (s *Selection) Variant(name string) *patches.Variant {
	for _, v := range s.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Quick makes cfg measure the configured base against base + the series
// read from paths (files, mboxes, directories, quilt series), with the
// configured workload. Paths become absolute, so the stored config
// names them wherever it is read.
func Quick(cfg *config.Config, paths []string) error {
	var abs []string
	for _, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		abs = append(abs, a)
	}
	cfg.Families = map[string]*patches.Family{QuickFamily: {
		Description: "the configured base against base + " + strings.Join(paths, " + "),
		Workload:    cfg.Workload.Name,
		Baseline:    "base",
		Variants: map[string]*patches.Variant{
			"base":    {Description: "the configured base kernel"},
			"patched": {Description: "base + the given patches", Patches: abs},
		},
	}}
	cfg.Family = QuickFamily
	cfg.Variants = nil
	return nil
}

// Resolve loads the family cfg names and selects its variants. A family
// defined in the experiment file wins over one of the same name in the
// patch set. Patch paths of file-defined families are made absolute in
// cfg, so the configuration stored with a run reproduces it.
func Resolve(cfg *config.Config) (*Selection, error) {
	builtin, err := patches.Load()
	if err != nil {
		return nil, err
	}
	set := builtin
	if cfg.Patches != "" {
		dir := cfg.Patches
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(cfg.Dir, dir)
		}
		if set, err = patches.LoadDir(dir); err != nil {
			return nil, err
		}
		cfg.Patches = dir
	}
	harness := firstHarness(builtin)
	var fam *patches.Family
	if def, ok := cfg.Families[cfg.Family]; ok {
		if def == nil {
			return nil, fmt.Errorf("family %s in the experiment file is empty", cfg.Family)
		}
		if def.Workload == "" {
			def.Workload = cfg.Workload.Name
		}
		for _, v := range def.Variants {
			if v == nil {
				continue
			}
			for i, p := range v.Patches {
				if !filepath.IsAbs(p) {
					v.Patches[i] = filepath.Join(cfg.Dir, p)
				}
			}
		}
		if err := def.Load(cfg.Family, patches.ReadSeries); err != nil {
			return nil, err
		}
		fam = def
	} else {
		f, ok := set.Families[cfg.Family]
		if !ok {
			return nil, fmt.Errorf("unknown family %q (the experiment file defines: %s; the patch set has: %s)",
				cfg.Family, list(mapKeys(cfg.Families)), list(set.FamilyNames()))
		}
		fam = f
	}
	if len(fam.Harness) == 0 {
		fam.Harness = harness
	}
	// The gate's tests: the experiment's, else the family's, else all;
	// written into cfg so the stored configuration says which ran. An
	// experiment that names kselftest targets and no binaries has chosen
	// its gate: the targets alone.
	chosen := len(cfg.Selftests.Binaries) > 0 || len(cfg.Selftests.Targets) > 0
	if !chosen {
		cfg.Selftests.Binaries = fam.Selftests
	}
	if !chosen && len(cfg.Selftests.Binaries) == 0 {
		cfg.Selftests.Binaries = selftests.DefaultBinaries
	}
	if need, who := selftests.MinCPUs(cfg.Selftests.Binaries); cfg.Selftests.Repetitions > 0 && need > cfg.VM.CPUs {
		return nil, fmt.Errorf("selftests.binaries: %s needs at least %d vCPUs and vm.cpus is %d (it would only skip): give it an experiment of its own with vm.cpus >= %d, such as the built-in cpuset-partitions",
			who, need, cfg.VM.CPUs, need)
	}
	names := cfg.Variants
	if len(names) == 0 {
		names = fam.VariantNames()
	}
	// The baseline always runs: every verdict is relative to it.
	if !slices.Contains(names, fam.Baseline) {
		names = append([]string{fam.Baseline}, names...)
	}
	sel := &Selection{Family: fam, SelftestsChosen: chosen}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, fmt.Errorf("variant %s is listed twice in variants", n)
		}
		seen[n] = true
		v, err := fam.Variant(n)
		if err != nil {
			return nil, err
		}
		if v.Ref != "" && cfg.Kernel.Source != "git" {
			return nil, fmt.Errorf("family %s variant %s names ref %q, but kernel.source is %s: set kernel.source: git and kernel.git_tree", fam.Name, v.Name, v.Ref, cfg.Kernel.Source)
		}
		sel.Variants = append(sel.Variants, v)
	}
	return sel, nil
}

func firstHarness(m *patches.Manifest) []*patches.Patch {
	for _, f := range m.Families {
		return f.Harness
	}
	return nil
}

func mapKeys(m map[string]*patches.Family) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// Pin rewrites the refs in cfg to the commits they resolved to (commits:
// variant name -> commit id; dirty: variants measured with uncommitted
// changes, which stay at HEAD), so the configuration stored with a run
// names exactly what was measured even after branches move.
func Pin(cfg *config.Config, sel *Selection, commits map[string]string, dirty map[string]bool) {
	for _, v := range sel.Variants {
		c := commits[v.Name]
		if c == "" || dirty[v.Name] {
			continue
		}
		if v.Ref == "" {
			cfg.Kernel.GitRef = c
			continue
		}
		if def, ok := cfg.Families[sel.Family.Name]; ok && def.Variants[v.Name] != nil {
			def.Variants[v.Name].Ref = c
		}
	}
}

// Select is what a command measures: with patchPaths, quick mode (Quick),
// named "quick-WORKLOAD" unless the experiment was named (-c); then cfg
// validated and its family's variants resolved. What the user must fix
// is a usage error.
func Select(cfg *config.Config, patchPaths []string, named bool) (*Selection, error) {
	if len(patchPaths) > 0 {
		if err := Quick(cfg, patchPaths); err != nil {
			return nil, err
		}
		if !named {
			cfg.Experiment = "quick-" + cfg.Workload.Name
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, usage.Wrap(err)
	}
	// The experiment's name is stored with its runs and shown in tables
	// and summaries: the one character set of names (internal/names).
	if err := names.Check(names.Experiment, cfg.Experiment); err != nil {
		return nil, usage.Wrap(err)
	}
	sel, err := Resolve(cfg)
	if err != nil {
		return nil, usage.Wrap(err)
	}
	return sel, nil
}

package main

import (
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
)

// Flag vocabulary: a flag that sets a configuration key is named as the
// key, dashes for underscores (--vm.memory-mb, --kernel.git-tree,
// --workload.name, --cache-dir): the same words as the YAML file and
// KREGRESS_VM_MEMORY_MB. The key's underscore spelling is the same flag
// (the root's normalization). Spellings from before are hidden aliases
// that still work and warn (deprecatedAlias).

// rootConfigKeys are the keys the root has as persistent flags: where
// the store and cache are, which every command needs.
var rootConfigKeys = []string{"results_dir", "cache_dir", "store"}

// addConfigFlags gives cmd a flag for every configuration key except
// the root's and skip (keys the command decides itself).
func addConfigFlags(cmd *cobra.Command, skip ...string) {
	keys := slices.DeleteFunc(config.Keys(), func(k string) bool { return slices.Contains(rootConfigKeys, k) || slices.Contains(skip, k) })
	if err := config.AddFlags(cmd.Flags(), keys); err != nil {
		panic(err) // a key whose type no flag carries: a programming error, caught by every test
	}
}

// deprecatedAlias adds old as a hidden spelling of the existing flag
// target (flagkit.DeprecatedAlias).
func deprecatedAlias(fs *pflag.FlagSet, old, target string) { flagkit.DeprecatedAlias(fs, old, target) }

// setUsageTemplate splits a command's flags in its help: its own, then
// the configuration keys it accepts.
func setUsageTemplate(root *cobra.Command) {
	flagkit.SplitHelp(root, func(f *pflag.Flag) bool { return len(f.Annotations[config.FlagAnnotation]) > 0 },
		"Configuration keys (the same keys as -c FILE and KREGRESS_<KEY>; flags win; `kregress config` shows them resolved)")
}

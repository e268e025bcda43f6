package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	var keys []string
	for _, k := range config.Keys() {
		if !slices.Contains(rootConfigKeys, k) && !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	if err := config.AddFlags(cmd.Flags(), keys); err != nil {
		panic(err) // a key whose type no flag carries: a programming error, caught by every test
	}
}

// aliasValue forwards an old flag spelling to the flag that replaced it,
// marking that one set, so the configuration binding (which reads the
// new flag) sees the value.
type aliasValue struct{ target *pflag.Flag }

func (a aliasValue) String() string { return a.target.Value.String() }
func (a aliasValue) Type() string   { return a.target.Value.Type() }
func (a aliasValue) Set(s string) error {
	if err := a.target.Value.Set(s); err != nil {
		return err
	}
	a.target.Changed = true
	return nil
}

// deprecatedAlias adds old as a hidden spelling of the existing flag
// target; using it prints "Flag --old has been deprecated, use
// --target" on stderr and sets target.
func deprecatedAlias(fs *pflag.FlagSet, old, target string) {
	t := fs.Lookup(target)
	if t == nil {
		panic(fmt.Sprintf("alias --%s: no flag --%s", old, target))
	}
	fs.AddFlag(&pflag.Flag{Name: old, Usage: t.Usage, Value: aliasValue{t}, DefValue: t.DefValue, NoOptDefVal: t.NoOptDefVal,
		Hidden: true, Deprecated: "use --" + t.Name})
}

// flagSubset is the flags of fs for which keep holds, for the help's
// two flag sections.
func flagSubset(fs *pflag.FlagSet, keep func(*pflag.Flag) bool) *pflag.FlagSet {
	out := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.VisitAll(func(f *pflag.Flag) {
		if keep(f) {
			out.AddFlag(f)
		}
	})
	return out
}

func isConfigFlag(f *pflag.Flag) bool { return len(f.Annotations[config.FlagAnnotation]) > 0 }

// readableUsages renders flags the way a person reads them: pflag
// writes bool flags as "--force[=true|false]", maps as "stringToString",
// and an empty list or map as a default of "[]".
func readableUsages(fs *pflag.FlagSet) string {
	return strings.NewReplacer("[=true|false]", "             ", "stringToString", "name=value    ", " (default [])", "").Replace(fs.FlagUsages())
}

// setUsageTemplate splits a command's flags in its help: its own, then
// the configuration keys it accepts.
func setUsageTemplate(root *cobra.Command) {
	cobra.AddTemplateFunc("ownFlagUsages", func(fs *pflag.FlagSet) string {
		return readableUsages(flagSubset(fs, func(f *pflag.Flag) bool { return !isConfigFlag(f) }))
	})
	cobra.AddTemplateFunc("configFlagUsages", func(fs *pflag.FlagSet) string {
		return readableUsages(flagSubset(fs, isConfigFlag))
	})
	cobra.AddTemplateFunc("flagUsages", readableUsages)
	tmpl := strings.NewReplacer(
		"Flags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}",
		"Flags:\n{{ownFlagUsages .LocalFlags | trimTrailingWhitespaces}}{{with configFlagUsages .LocalFlags}}\n\n"+
			"Configuration keys (the same keys as -c FILE and KREGRESS_<KEY>; flags win; `kregress config` shows them resolved):\n"+
			"{{. | trimTrailingWhitespaces}}{{end}}{{end}}",
		".InheritedFlags.FlagUsages", "flagUsages .InheritedFlags",
	).Replace(root.UsageTemplate())
	if !strings.Contains(tmpl, "configFlagUsages") {
		panic("cobra's usage template changed: the flag sections are not split")
	}
	root.SetUsageTemplate(tmpl)
}

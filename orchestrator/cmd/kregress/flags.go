package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/results/format"
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
	// A key whose type no flag carries panics: a programming error,
	// caught by every test.
	config.MustAddFlags(cmd.Flags(), keys)
}

// The benchmark's host flags: the one way to let an experiment's
// benchmark run on the host (config.Config.BenchmarkHostDryRun) or pack
// host files from outside its directory (BenchmarkCopyFrom); flags of
// the commands that check an experiment before building (run, build),
// never keys, since an experiment file is outside input.
const (
	hostDryRunFlag = "benchmark-host-dry-run"
	copyFromFlag   = "benchmark-copy-from"
)

func addBenchmarkHostFlags(cmd *cobra.Command) {
	cmd.Flags().Bool(hostDryRunFlag, false, "run the experiment's benchmark program once on this host, as you, before anything builds (with --dry-run too), to check that its output parses; only when its workload.benchmark says host_dry_run: true. It gets a minimal environment (PATH, HOME, LC_ALL=C, TMPDIR), and its output is redacted. Without this flag an experiment file never runs a program on the host")
	cmd.Flags().StringArray(copyFromFlag, nil, "let the benchmark's copy take host files from below `DIR` (absolute; repeatable); without it only what lies below the experiment file's directory is packed")
}

// benchmarkHostFlags sets cfg's benchmark host fields from cmd's flags
// (off for a command without them).
func benchmarkHostFlags(cmd *cobra.Command, cfg *config.Config) error {
	if on, err := cmd.Flags().GetBool(hostDryRunFlag); err == nil {
		cfg.BenchmarkHostDryRun = on
	}
	dirs, err := cmd.Flags().GetStringArray(copyFromFlag)
	if err != nil {
		return nil
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("--%s %q: want an absolute directory", copyFromFlag, d)
		}
		cfg.BenchmarkCopyFrom = append(cfg.BenchmarkCopyFrom, filepath.Clean(d))
	}
	return nil
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

// addExecutorFlags adds the old spellings of the executor keys (after
// addConfigFlags): --executor, --parallel and, where cells may be left
// running, --detach.
func addExecutorFlags(cmd *cobra.Command, detach bool) {
	deprecatedAlias(cmd.Flags(), "executor", config.FlagFor("executor.kind"))
	deprecatedAlias(cmd.Flags(), "parallel", config.FlagFor("executor.parallel"))
	if detach {
		deprecatedAlias(cmd.Flags(), "detach", config.FlagFor("executor.detach"))
	}
}

// Output vocabulary, the same in every command: -f and -o
// (internal/flagkit.Outputs); --json is the shorthand for -f json where a
// command lists or shows. Files are written atomically and never over a
// store or a device (internal/outfile). The spellings from before
// (nightly --junit FILE, bisect --markdown FILE, ...) are hidden aliases
// of -o FMT=FILE that warn.

// addOutputFlags gives cmd -f (when stdout names formats) and -o.
func addOutputFlags(cmd *cobra.Command, stdout, files []string) *flagkit.Outputs {
	return flagkit.NewOutputs(cmd.Flags(), stdout, files)
}

// emit renders the outputs -f and -o asked for (their Resolve): the
// stdout format ("" when a bare -o FILE took it) to cmd's stdout, then
// every file (flagkit.Emit).
func emit(cmd *cobra.Command, stdout string, files []flagkit.Output, render func(format string, w io.Writer) error) error {
	return flagkit.Emit(cmd.OutOrStdout(), cmd.ErrOrStderr(), stdout, files, render)
}

// jsonFlag gives a command that lists or shows -f table|json and --json,
// its shorthand: the same content as its table, as one indented JSON
// document on stdout, for scripts (field names are the Go structs' json
// tags, stable across releases like the export format's).
func jsonFlag(cmd *cobra.Command) { jsonFlagBeside(cmd, "table", "the table") }

// jsonFlagBeside is jsonFlag for a command whose own output is not a
// table (config prints YAML, version a line): -f human|json, human the
// default (what says what it is in --json's help), and --json.
func jsonFlagBeside(cmd *cobra.Command, human, what string) {
	flagkit.FormatVar(cmd.Flags(), new(string), []string{human, "json"})
	cmd.Flags().Bool("json", false, "print JSON instead of "+what+" (-f json)")
	// --json -f table printed JSON without a word: refuse the pair.
	cmd.MarkFlagsMutuallyExclusive("json", "format")
}

// wantJSON reports whether --json or -f json was given.
func wantJSON(cmd *cobra.Command) bool {
	b, _ := cmd.Flags().GetBool("json")
	f := cmd.Flags().Lookup("format")
	return b || (f != nil && f.Value.String() == "json")
}

// printJSONOr prints v as JSON when --json or -f json was given, else
// writes text to stdout (format.JSONOr): how a command that lists or
// shows prints.
func printJSONOr(cmd *cobra.Command, v any, text func(w io.Writer) error) error {
	return format.JSONOr(cmd.OutOrStdout(), wantJSON(cmd), v, text)
}

// jsonShorthand gives a command whose -f takes json among other formats
// (diff) --json, the same as -f json, as jsonFlag does for the commands
// that list or show.
func jsonShorthand(cmd *cobra.Command) {
	f := cmd.Flags().Lookup("format")
	cmd.Flags().AddFlag(&pflag.Flag{Name: "json", Usage: "print JSON (-f json)", Value: &formatJSON{format: f.Value}, NoOptDefVal: "true", DefValue: "false"})
	cmd.MarkFlagsMutuallyExclusive("json", "format")
}

// formatJSON is --json: set, it sets -f to json.
type formatJSON struct {
	format pflag.Value
	set    bool
}

func (j *formatJSON) String() string { return strconv.FormatBool(j.set) }
func (j *formatJSON) Type() string   { return "bool" }
func (j *formatJSON) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	j.set = b
	if b {
		return j.format.Set("json")
	}
	return nil
}

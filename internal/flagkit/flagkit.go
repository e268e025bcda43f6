// Package flagkit holds the pflag value types and help helpers that give
// every kregress command the same flag vocabulary: a -f that takes one of
// a command's formats, old spellings kept as hidden aliases that warn,
// and help that reads as a person does. The -o FMT=FILE resolution is in
// outputs.go.
package flagkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// OrList is "a, b or c".
func OrList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// formatValue is -f: one of a command's formats, any case, refused at
// parse time otherwise (exit 2).
type formatValue struct {
	v       *string
	allowed []string
}

func (f formatValue) String() string { return *f.v }
func (f formatValue) Type() string   { return "FMT" }
func (f formatValue) Set(s string) error {
	if !slices.Contains(f.allowed, strings.ToLower(s)) {
		return fmt.Errorf("want %s", OrList(f.allowed))
	}
	*f.v = strings.ToLower(s)
	return nil
}

// FormatVar adds -f/--format to fs, one of formats (the first is the
// default, lower case), into v.
func FormatVar(fs *pflag.FlagSet, v *string, formats []string) {
	*v = formats[0]
	fs.VarP(formatValue{v, formats}, "format", "f", "what to print on stdout: "+OrList(formats))
}

// ChoiceVar adds --name to fs: one of choices (the first is the
// default, lower case), any case, refused at parse time otherwise.
func ChoiceVar(fs *pflag.FlagSet, v *string, name string, choices []string, usage string) {
	*v = choices[0]
	fs.Var(formatValue{v, choices}, name, usage+": "+OrList(choices))
}

// prefixValue forwards FILE to another flag as PREFIX+FILE.
type prefixValue struct {
	target *pflag.Flag
	prefix string
}

func (p prefixValue) String() string { return "" }
func (p prefixValue) Type() string   { return "string" }
func (p prefixValue) Set(s string) error {
	p.target.Changed = true
	return p.target.Value.Set(p.prefix + s)
}

// OutputAlias adds --old FILE to fs as a hidden, deprecated spelling of
// -o format=FILE (fs must have -o/--output).
func OutputAlias(fs *pflag.FlagSet, old, format string) {
	o := fs.Lookup("output")
	if o == nil {
		panic(fmt.Sprintf("alias --%s: no flag --output", old))
	}
	fs.AddFlag(&pflag.Flag{Name: old, Usage: "write " + format + " to FILE", Value: prefixValue{o, format + "="},
		Hidden: true, Deprecated: "use -o " + format + "=FILE"})
}

// aliasValue forwards an old flag spelling to the flag that replaced it,
// marking that one set, so whatever reads the new flag (the
// configuration binding) sees the value.
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

// DeprecatedAlias adds old as a hidden spelling of the existing flag
// target; using it prints "Flag --old has been deprecated, use
// --target" on stderr and sets target.
func DeprecatedAlias(fs *pflag.FlagSet, old, target string) {
	t := fs.Lookup(target)
	if t == nil {
		panic(fmt.Sprintf("alias --%s: no flag --%s", old, target))
	}
	fs.AddFlag(&pflag.Flag{Name: old, Usage: t.Usage, Value: aliasValue{t}, DefValue: t.DefValue, NoOptDefVal: t.NoOptDefVal,
		Hidden: true, Deprecated: "use --" + t.Name})
}

// Subset is the flags of fs for which keep holds.
func Subset(fs *pflag.FlagSet, keep func(*pflag.Flag) bool) *pflag.FlagSet {
	out := pflag.NewFlagSet("", pflag.ContinueOnError)
	fs.VisitAll(func(f *pflag.Flag) {
		if keep(f) {
			out.AddFlag(f)
		}
	})
	return out
}

// ReadableUsages renders flags the way a person reads them: pflag
// writes bool flags as "--force[=true|false]", maps as "stringToString",
// and an empty list or map as a default of "[]".
func ReadableUsages(fs *pflag.FlagSet) string {
	return strings.NewReplacer("[=true|false]", "             ", "stringToString", "name=value    ", " (default [])", "").Replace(fs.FlagUsages())
}

// SplitHelp makes root's help (and its commands') list a command's flags
// in two sections: its own, then those for which second holds under
// heading; every flag section is rendered by ReadableUsages. It panics
// when cobra's usage template no longer has the section it rewrites.
func SplitHelp(root *cobra.Command, second func(*pflag.Flag) bool, heading string) {
	cobra.AddTemplateFunc("ownFlagUsages", func(fs *pflag.FlagSet) string {
		return ReadableUsages(Subset(fs, func(f *pflag.Flag) bool { return !second(f) }))
	})
	cobra.AddTemplateFunc("secondFlagUsages", func(fs *pflag.FlagSet) string {
		return ReadableUsages(Subset(fs, second))
	})
	cobra.AddTemplateFunc("flagUsages", ReadableUsages)
	tmpl := strings.NewReplacer(
		"Flags:\n{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}",
		"Flags:\n{{ownFlagUsages .LocalFlags | trimTrailingWhitespaces}}{{with secondFlagUsages .LocalFlags}}\n\n"+
			heading+":\n{{. | trimTrailingWhitespaces}}{{end}}{{end}}",
		".InheritedFlags.FlagUsages", "flagUsages .InheritedFlags",
	).Replace(root.UsageTemplate())
	if !strings.Contains(tmpl, "secondFlagUsages") {
		panic("cobra's usage template changed: the flag sections are not split")
	}
	root.SetUsageTemplate(tmpl)
}

// DashesForUnderscores is a flag set's normalization (pflag's
// SetNormalizeFunc) under which a flag's underscore spelling
// (--cache_dir, a configuration key's) is the same flag as its dashed
// one (--cache-dir).
func DashesForUnderscores(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	return pflag.NormalizedName(strings.ReplaceAll(name, "_", "-"))
}

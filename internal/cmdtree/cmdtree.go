// Package cmdtree holds the rules a cobra command tree keeps for words
// it does not know (ApplyRules): cobra refuses an unknown command only at
// the root (kregress frob), while a group (kregress results frob) and the
// help command (kregress help frob) printed help and exited 0; an unknown
// flag is a usage error; a flag's underscore spelling is its dashed one.
// Execute runs such a tree on a command line.
package cmdtree

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/internal/flagkit"
	"github.com/kregress/kregress/internal/near"
	"github.com/kregress/kregress/internal/usage"
)

// groupAnnotation marks a group command made runnable only to refuse an
// unknown subcommand: its usage shows no "ROOT GROUP [flags]" line, as
// when it was not runnable.
const groupAnnotation = "cmdtree-group"

// ApplyRules gives root's tree its rules for words: a flag error (an
// unknown flag, a bad value) is a usage error; a flag's underscore
// spelling (--cache_dir, a config key's) is its dashed one
// (flagkit.DashesForUnderscores); an unknown command is refused
// (RefuseUnknownCommands). Call it once the tree is built.
func ApplyRules(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usage.Wrap(suggestFlag(c, err)) })
	root.SetGlobalNormalizationFunc(flagkit.DashesForUnderscores)
	RefuseUnknownCommands(root)
}

// unknownFlag is pflag's error for a long flag no command defines.
var unknownFlag = regexp.MustCompile(`^unknown flag: --(\S+)$`)

// suggestFlag adds to pflag's unknown-flag error the flag of c the user
// most likely meant (--repetiton: --repetitions), as an unknown key in a
// configuration file gets.
func suggestFlag(c *cobra.Command, err error) error {
	m := unknownFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" {
			names = append(names, f.Name)
		}
	})
	if n := near.Nearest(m[1], names); n != "" {
		return fmt.Errorf("%w (did you mean --%s?)", err, n)
	}
	return err
}

// RefuseUnknownCommands makes every group command below root refuse a
// word that names none of its commands, and root's help command refuse
// a topic that names no command: usage errors naming the word and
// listing the valid commands. A group with no argument still prints its
// help. Call it once the tree is built.
func RefuseUnknownCommands(root *cobra.Command) {
	// A group becomes runnable (cobra checks Args only on a runnable
	// command); its usage is kept as it was.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .Runnable}}", `{{if and .Runnable (not (index .Annotations "`+groupAnnotation+`"))}}`, 1))
	// cobra adds completion when it executes; added now, it is a group
	// like the others.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		refuseInGroups(c)
	}
	root.SetHelpCommand(newHelp(root.Name()))
}

// refuseInGroups gives c, when it is a group, and the groups below it
// unknownSubcommand as Args.
func refuseInGroups(c *cobra.Command) {
	if !c.HasSubCommands() {
		return
	}
	c.Args = unknownSubcommand
	if !c.Runnable() {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[groupAnnotation] = "true"
	}
	for _, sub := range c.Commands() {
		refuseInGroups(sub)
	}
}

// unknownSubcommand is a group command's Args: any positional argument
// is a subcommand it does not have.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usage.Errorf("unknown command %q for %q: its commands are %s", args[0], cmd.CommandPath(), Names(cmd))
}

// Names lists c's visible subcommands, comma-separated.
func Names(c *cobra.Command) string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return strings.Join(names, ", ")
}

// newHelp is ROOT help [COMMAND...]: cobra's, except that a topic naming
// no command is a usage error (cobra printed the root's usage and
// exited 0).
func newHelp(root string) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long: `Help provides help for any command in the application.
Simply type ` + root + ` help [path to command] for full details.`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || len(rest) > 0 {
				// Find's error (an unknown word at the root) leaves the
				// arguments as they were: rest is never empty here.
				if cmd == nil {
					cmd = c.Root()
				}
				return usage.Errorf("unknown help topic %q for %q: its commands are %s", rest[0], cmd.CommandPath(), Names(cmd))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// Execute runs root on the command line args, its errors (and help on
// request) written to stderr and its results to stdout. Given the
// process's own stdout, root keeps cobra's default out writer: cobra
// prints flag warnings (a deprecated spelling) to the out writer when
// one is set, else to stderr, so they stay on stderr, apart from results.
func Execute(root *cobra.Command, args []string, stdout, stderr io.Writer) error {
	root.SetArgs(args)
	root.SetErr(stderr)
	if stdout != io.Writer(os.Stdout) {
		root.SetOut(stdout)
	}
	return exclusiveFlags(root.Execute())
}

// exclusiveGroup finds the flags of cobra's mutually-exclusive-group
// error ("if any flags in the group [a b] are set none of the others
// can be; [a b] were all set").
var exclusiveGroup = regexp.MustCompile(`^if any flags in the group \[[^\]]*\] are set none of the others can be; \[([^\]]*)\] were all set$`)

// exclusiveFlags says cobra's flag-group error in the user's words: the
// flags given together, as typed.
func exclusiveFlags(err error) error {
	if err == nil {
		return nil
	}
	m := exclusiveGroup.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	names := strings.Fields(m[1])
	for i, n := range names {
		names[i] = "--" + n
	}
	return usage.Errorf("%s cannot be given together: give one of them", strings.Join(names, " and "))
}

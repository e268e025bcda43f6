package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/results/verdict"
)

// walkCommands calls fn on every command of a fresh tree (help and
// completion excluded).
func walkCommands(fn func(*cobra.Command)) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		fn(c)
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			walk(sub)
		}
	}
	walk(newRoot())
}

// exampleArgs extracts, from one line of a command's Example, the
// arguments of each kregress invocation in it: after "kregress", up to a
// shell operator, a redirection or a comment.
func exampleArgs(line string) [][]string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	var out [][]string
	for _, seg := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == ';' || r == '&' }) {
		words := shellWords(seg)
		for i, w := range words {
			if w != "kregress" {
				continue
			}
			var args []string
			for _, a := range words[i+1:] {
				if strings.HasPrefix(a, ">") || strings.HasPrefix(a, "<") {
					break
				}
				if strings.HasPrefix(a, "$") {
					a = "1" // a shell variable: a number where one is needed
				}
				args = append(args, a)
			}
			out = append(out, args)
			break
		}
	}
	return out
}

// shellWords splits on blanks, keeping quoted strings whole (unquoted).
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// parseExample resolves args against a fresh command tree the way
// Execute would, without running anything: the command, its flags and
// its positional arguments.
func parseExample(args []string) error {
	root := newRoot()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if cmd.Args != nil || !cmd.HasSubCommands() {
		return cmd.ValidateArgs(cmd.Flags().Args())
	}
	return nil
}

// TestHelpExamplesParse: every example in every command's --help names
// a real command with flags it has and arguments it accepts (`config -c
// my.yaml --vm.cpus 4` once failed with "unknown flag").
func TestHelpExamplesParse(t *testing.T) {
	n := 0
	walkCommands(func(c *cobra.Command) {
		// Example is all examples; in Long, the indented lines are.
		lines := strings.Split(c.Example, "\n")
		for _, l := range strings.Split(c.Long, "\n") {
			if strings.HasPrefix(l, " ") {
				lines = append(lines, l)
			}
		}
		for _, line := range lines {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "kregress ") && !strings.Contains(line, " kregress ") {
				continue
			}
			for _, args := range exampleArgs(line) {
				n++
				if err := parseExample(args); err != nil {
					t.Errorf("kregress %s: example %q: %v", c.CommandPath(), line, err)
				}
			}
		}
	})
	if n < 40 {
		t.Fatalf("only %d examples found: the extraction is broken", n)
	}
}

// TestExampleParserRefuses: the check above can fail.
func TestExampleParserRefuses(t *testing.T) {
	for _, bad := range []string{"config --no-such-flag", "results show", "diff 1 2 3", "nosuchcommand"} {
		if err := parseExample(strings.Fields(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if got := exampleArgs(`git bisect run kregress bisect step --good "v 1" > x # c`); len(got) != 1 || strings.Join(got[0], "|") != "bisect|step|--good|v 1" {
		t.Errorf("exampleArgs: %q", got)
	}
}

// TestExitCodesHelpComplete: the root help shows verdict's exit-code
// table, whose own test (TestHelpComplete) checks that it lists every
// code: exit codes are defined in results/verdict, not here.
func TestExitCodesHelpComplete(t *testing.T) {
	if !strings.Contains(newRoot().Long, verdict.Help) {
		t.Fatal("the root help lacks verdict.Help")
	}
}

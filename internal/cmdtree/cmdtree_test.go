package cmdtree

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/internal/usage"
)

// tree is root with a group "g" of "a" and "b", and a leaf "leaf".
func tree() *cobra.Command {
	root := &cobra.Command{Use: "root", SilenceErrors: true, SilenceUsage: true}
	g := &cobra.Command{Use: "g", Short: "a group"}
	for _, n := range []string{"a", "b"} {
		g.AddCommand(&cobra.Command{Use: n, Short: n, RunE: func(*cobra.Command, []string) error { return nil }})
	}
	root.AddCommand(g, &cobra.Command{Use: "leaf", Short: "leaf", RunE: func(*cobra.Command, []string) error { return nil }})
	RefuseUnknownCommands(root)
	return root
}

func run(args ...string) (string, error) {
	root := tree()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// An unknown word after a group or help is a usage error naming it and
// the valid commands; a bare group and a known topic still print help,
// and a group's usage gains no [flags] line.
func TestRefuseUnknownCommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"g", "frob"}, `unknown command "frob" for "root g": its commands are a, b`},
		{[]string{"help", "frob"}, `unknown help topic "frob" for "root": its commands are completion, g, leaf`},
		{[]string{"help", "g", "frob"}, `unknown help topic "frob" for "root g": its commands are a, b`},
		{[]string{"completion", "frob"}, `unknown command "frob" for "root completion"`},
	} {
		if _, err := run(tc.args...); !usage.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error saying %s", tc.args, err, tc.want)
		}
	}
	for _, args := range [][]string{{"g"}, {"help", "g"}, {"g", "--help"}} {
		out, err := run(args...)
		if err != nil || !strings.Contains(out, "root g [command]") || strings.Contains(out, "root g [flags]") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := run("g", "a"); err != nil {
		t.Errorf("g a: %v", err)
	}
}

// Execute runs the tree on args, results on stdout and errors' output on
// stderr.
func TestExecute(t *testing.T) {
	var stdout, stderr bytes.Buffer
	root := tree()
	root.AddCommand(&cobra.Command{Use: "say", RunE: func(c *cobra.Command, args []string) error {
		c.PrintErrln("said", strings.Join(args, " "))
		_, err := c.OutOrStdout().Write([]byte("result\n"))
		return err
	}})
	if err := Execute(root, []string{"say", "a", "b"}, &stdout, &stderr); err != nil || stdout.String() != "result\n" || stderr.String() != "said a b\n" {
		t.Errorf("Execute: %v; stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
	if err := Execute(tree(), []string{"frob"}, &stdout, &stderr); !usage.IsParser(err) && !usage.Is(err) {
		t.Errorf("Execute of an unknown command: %v", err)
	}
}

// Under ApplyRules a flag error is a usage error, a flag's underscore
// spelling is its dashed one, and an unknown command is refused.
func TestApplyRules(t *testing.T) {
	var got string
	root := &cobra.Command{Use: "root", SilenceErrors: true, SilenceUsage: true}
	g := &cobra.Command{Use: "g"}
	leaf := &cobra.Command{Use: "leaf", RunE: func(*cobra.Command, []string) error { return nil }}
	leaf.Flags().StringVar(&got, "cache-dir", "", "")
	g.AddCommand(&cobra.Command{Use: "a", RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(g, leaf)
	ApplyRules(root)
	if err := Execute(root, []string{"leaf", "--cache_dir", "/c"}, io.Discard, io.Discard); err != nil || got != "/c" {
		t.Errorf("--cache_dir: %v, set %q", err, got)
	}
	if err := Execute(root, []string{"leaf", "--nope"}, io.Discard, io.Discard); !usage.Is(err) {
		t.Errorf("an unknown flag: %v, not a usage error", err)
	}
	if err := Execute(root, []string{"g", "frob"}, io.Discard, io.Discard); !usage.Is(err) {
		t.Errorf("an unknown command in a group: %v, not a usage error", err)
	}
}

// Two flags of a mutually exclusive group given together are named as
// the user typed them, a usage error without cobra's wording.
func TestExclusiveFlagsNamed(t *testing.T) {
	tree := func() *cobra.Command {
		leaf := &cobra.Command{Use: "leaf", RunE: func(*cobra.Command, []string) error { return nil }}
		leaf.Flags().Bool("json", false, "")
		leaf.Flags().String("format", "table", "")
		leaf.MarkFlagsMutuallyExclusive("json", "format")
		root := &cobra.Command{Use: "root"}
		root.AddCommand(leaf)
		return root
	}
	err := Execute(tree(), []string{"leaf", "--json", "--format", "table"}, io.Discard, io.Discard)
	if !usage.Is(err) || err.Error() != "--format and --json cannot be given together: give one of them" {
		t.Fatalf("%v", err)
	}
	if err := Execute(tree(), []string{"leaf", "--json"}, io.Discard, io.Discard); err != nil {
		t.Fatalf("one of them: %v", err)
	}
}

// A mistyped flag is a usage error that names the flag meant; a word
// close to no flag gets no guess.
func TestFlagTypoSuggests(t *testing.T) {
	root := &cobra.Command{Use: "root", SilenceErrors: true, SilenceUsage: true}
	leaf := &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error { return nil }}
	leaf.Flags().Int("repetitions", 5, "")
	root.PersistentFlags().Bool("quiet", false, "")
	root.AddCommand(leaf)
	ApplyRules(root)
	for args, want := range map[string]string{
		"run --repetiton 4": "unknown flag: --repetiton (did you mean --repetitions?)",
		"run --quite":       "unknown flag: --quite (did you mean --quiet?)",
		"run --frobnicate":  "unknown flag: --frobnicate",
	} {
		root.SetArgs(strings.Fields(args))
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		err := root.Execute()
		if !usage.Is(err) || err.Error() != want {
			t.Errorf("%s: %v, want a usage error %q", args, err, want)
		}
	}
}

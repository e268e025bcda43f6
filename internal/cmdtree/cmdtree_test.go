package cmdtree

import (
	"bytes"
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

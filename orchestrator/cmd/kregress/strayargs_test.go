package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// takesPositional says whether c's Use names a positional argument: a
// word after the command's name that is neither a flag nor a flag's
// value ("bisect --good REF" takes none, "prune (--keep N | RUN...)"
// takes RUN).
func takesPositional(c *cobra.Command) bool {
	words := strings.Fields(strings.NewReplacer("(", " ", ")", " ", "[", " ", "]", " ", "|", " ").Replace(c.Use))
	for i := 1; i < len(words); i++ {
		if strings.HasPrefix(words[i], "-") {
			i++ // its value
			continue
		}
		return true
	}
	return false
}

// A command that takes no positional argument refuses a stray one as a
// usage error before doing any work (kregress run foo started a real
// run), and a group refuses a subcommand it does not have (kregress
// results frob printed help and exited 0), naming it: nothing is
// created in the store, the cache or the working directory.
func TestStrayArgumentsRefused(t *testing.T) {
	var lines [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.HasSubCommands() || !takesPositional(c) {
			lines = append(lines, append(append([]string{}, path...), "frob"))
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string{}, path...), sub.Name()))
		}
	}
	root := newRoot()
	for _, c := range root.Commands() {
		walk(c, []string{c.Name()})
	}
	lines = append(lines, []string{"help", "frob"}, []string{"help", "results", "frob"})
	for _, want := range []string{"run", "build", "seeds", "cell", "results", "completion"} {
		found := false
		for _, l := range lines {
			found = found || l[0] == want
		}
		if !found {
			t.Fatalf("the walk missed %s: %v", want, lines)
		}
	}
	for _, args := range lines {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			dir := isolate(t)
			t.Setenv("HOME", dir)
			t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "xdg-cache"))
			t.Chdir(dir)
			out, err := inProcess(t, nil, args...)
			if code := exitCodeOf(err); code != 2 || !strings.Contains(out, `"frob"`) {
				t.Fatalf("kregress %s: exit %d, want 2 naming frob:\n%s", strings.Join(args, " "), code, out)
			}
			if left, _ := os.ReadDir(dir); len(left) > 0 {
				t.Fatalf("kregress %s created %v", strings.Join(args, " "), left)
			}
		})
	}
}

// A group's help names its commands; with no argument it still prints
// its help and exits 0.
func TestGroupWithoutArgumentPrintsHelp(t *testing.T) {
	for _, g := range []string{"results", "baseline", "selftests", "completion"} {
		out, err := runInProcess(g)
		if err != nil || !strings.Contains(out, "kregress "+g+" [command]") || strings.Contains(out, "kregress "+g+" [flags]") {
			t.Fatalf("kregress %s: %v\n%s", g, err, out)
		}
	}
	out, err := inProcess(t, nil, "results", "frob")
	if !strings.Contains(out, "its commands are export, import, list") || exitCodeOf(err) != 2 {
		t.Fatalf("results frob: %v\n%s", err, out)
	}
}

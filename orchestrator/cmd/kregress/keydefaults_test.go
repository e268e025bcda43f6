package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kregress/kregress/orchestrator/config"
)

// TestEveryKeyDefaultInHelp: every configuration key a command takes as
// a flag shows its default in --help: cobra's "(default X)", or, where
// the default is empty or zero, a usage that says what that means
// ("empty: ...", "0: ...", "default: ..."). A boolean's default is off
// unless its help shows "(default true)".
func TestEveryKeyDefaultInHelp(t *testing.T) {
	var walk func(c *cobra.Command)
	seen := map[string]bool{}
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if len(f.Annotations[config.FlagAnnotation]) == 0 || f.Hidden || seen[f.Name] {
				return
			}
			seen[f.Name] = true
			switch f.DefValue {
			case "", "0", "[]", "false", "0s":
			default:
				return // cobra prints (default X)
			}
			if f.Value.Type() == "bool" {
				return
			}
			u := strings.ToLower(f.Usage)
			if !strings.Contains(u, "empty") && !strings.Contains(u, "0:") && !strings.Contains(u, "default") && !strings.Contains(u, "none") {
				t.Errorf("--%s (default %q): its help does not say what its default means: %q", f.Name, f.DefValue, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if len(seen) < 40 {
		t.Fatalf("only %d configuration flags found", len(seen))
	}
}

package config

import (
	"testing"

	"github.com/spf13/pflag"
)

// Loader resolves each experiment with the command's flags bound, as
// Load does.
func TestLoader(t *testing.T) {
	fs := pflag.NewFlagSet("seeds", pflag.ContinueOnError)
	fs.Int("repetitions", 0, "")
	if err := fs.Parse([]string{"--repetitions", "7"}); err != nil {
		t.Fatal(err)
	}
	load := Loader(fs)
	for _, exp := range []string{"rstat-relock", "lru-drain"} {
		cfg, err := load(exp)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := Load(exp, fs)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Experiment != exp || cfg.Repetitions != want.Repetitions {
			t.Fatalf("%s: experiment %s, %d repetitions; Load: %d", exp, cfg.Experiment, cfg.Repetitions, want.Repetitions)
		}
	}
	if _, err := load("no-such-experiment"); err == nil {
		t.Fatal("an unknown experiment resolved")
	}
}

package config

import (
	"testing"

	"github.com/spf13/pflag"
)

// Loader resolves each experiment it is given with the same flags
// overriding it.
func TestLoader(t *testing.T) {
	fs := pflag.NewFlagSet("bisect", pflag.ContinueOnError)
	if err := AddFlags(fs, Keys()); err != nil {
		t.Fatal(err)
	}
	if err := fs.Set(FlagFor("repetitions"), "7"); err != nil {
		t.Fatal(err)
	}
	load := Loader(fs)
	file := writeConfig(t, "repetitions: 3\n")
	for _, e := range []string{"", file} {
		c, err := load(e)
		if err != nil || c.Repetitions != 7 {
			t.Errorf("%q: %+v, %v; want repetitions 7 from the flag", e, c, err)
		}
	}
	if _, err := load("/no/such/experiment.yaml"); err == nil {
		t.Error("a missing experiment loaded")
	}
}

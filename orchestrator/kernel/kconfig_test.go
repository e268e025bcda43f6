package kernel

import (
	"errors"
	"testing"
)

// A string option is kept as asked when Kconfig wrote it back in its own
// form: quoted, with a backslash before '"' and '\' only. Reporting it
// as dropped would fail a build (a required fragment) or blame an option
// for a test's failure (a wanted one) that had it all along.
func TestStringOptionsComparedAsKconfigReadsThem(t *testing.T) {
	final := []byte(`CONFIG_CMDLINE="console=ttyS0 a\"b"
CONFIG_LOCALVERSION="-kregress"
CONFIG_EXTRA="aq"
CONFIG_NR_CPUS=8
`)
	for _, c := range []struct {
		frag string
		kept bool
	}{
		{`CONFIG_CMDLINE="console=ttyS0 a\"b"`, true},
		{`CONFIG_LOCALVERSION=-kregress`, true},   // unquoted: Kconfig quotes it
		{`CONFIG_EXTRA="a\q"`, true},              // a backslash takes any character
		{`CONFIG_EXTRA="ab"`, false},              // another value
		{`CONFIG_LOCALVERSION="-kregress`, false}, // no closing quote: not what .config holds
		{`CONFIG_NR_CPUS=8`, true},
		{`CONFIG_NR_CPUS="8"`, false}, // an int is never quoted in .config
		{`# CONFIG_SMP is not set`, true},
	} {
		f := Fragment{Name: "t.config", Data: []byte(c.frag + "\n")}
		err := VerifyConfig(final, []Fragment{f})
		var ce *ConfigError
		if c.kept != (err == nil) || !c.kept && !errors.As(err, &ce) {
			t.Errorf("%s: kept %v, want %v (%v)", c.frag, err == nil, c.kept, err)
		}
		f.Wanted = true
		if got := UnmetWanted(final, []Fragment{f}); c.kept != (len(got) == 0) {
			t.Errorf("%s wanted: unmet %v, want kept %v", c.frag, got, c.kept)
		}
	}
}

func FuzzSameValue(f *testing.F) {
	for _, s := range []string{`"a\"b"`, `"a\\"`, `abc`, `"`, `""`, `"a\`} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, asked, got string) {
		if asked == got && !sameValue(asked, got) {
			t.Fatalf("%q is not the same as itself", asked)
		}
		if s, ok := kconfigString(got); ok && len(s) >= len(got) {
			t.Fatalf("%q read as %q: a quoted value's string is shorter", got, s)
		}
	})
}

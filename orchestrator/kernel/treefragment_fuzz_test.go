package kernel

import (
	"strings"
	"testing"
)

// FuzzTreeFragment: a kselftest target's config fragment (a hostile
// tree's text) is checked without panicking, and one accepted is read
// as just the options its lines write: each option ParseConfig finds is
// a line of the fragment as CONFIG_X=v or "# CONFIG_X is not set".
func FuzzTreeFragment(f *testing.F) {
	for _, s := range []string{
		"CONFIG_MQUEUE=y\n# CONFIG_SMP is not set\n",
		"#xCONFIG_SMP is not set\n", "CONFIG_X=\"a\\\"b\"\n", "CONFIG_X=0x1f\r\n",
		strings.Repeat("C", maxFragmentLine+1), "CONFIG_A=y\x00\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckTreeFragment("config", data) != nil {
			return
		}
		lines := map[string]bool{}
		for _, l := range strings.Split(string(data), "\n") {
			lines[l] = true
		}
		for _, o := range ParseConfig(data) {
			if !lines[o.Name+"="+o.Value] && !(o.Value == "n" && lines["# "+o.Name+" is not set"]) {
				t.Fatalf("accepted fragment %q is read as %s=%s, which no line of it writes", data, o.Name, o.Value)
			}
		}
	})
}

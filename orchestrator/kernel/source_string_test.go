package kernel

import "testing"

// A git source with no ref is measured at HEAD, and says so (a dry run
// printed "git tree /x at " with nothing after it).
func TestGitSourceStringNamesHEAD(t *testing.T) {
	for _, c := range []struct{ ref, want string }{
		{"", "git tree /src/linux at HEAD"},
		{"v6.12", "git tree /src/linux at v6.12"},
	} {
		if got := (GitSource{Tree: "/src/linux", Ref: c.ref}).String(); got != c.want {
			t.Errorf("ref %q: %q, want %q", c.ref, got, c.want)
		}
	}
}

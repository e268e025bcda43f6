package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionSources(t *testing.T) {
	withVCS := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"make stamps it", "v0.3-12-gabc", withVCS, "v0.3-12-gabc"},
		{"go install @version", Unstamped, &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go build in a checkout", Unstamped, withVCS, "devel-0123456789ab-dirty"},
		{"nothing recorded", Unstamped, &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: "(devel)"}}, "devel (no version information recorded"},
		{"no build info", "", nil, "unknown"},
	} {
		got := fromBuildInfo(c.stamped, c.bi, c.bi != nil)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if got == Unstamped {
			t.Errorf("%s: just %q", c.name, Unstamped)
		}
	}
}

func TestDescribe(t *testing.T) {
	i := Describe("v1.2.3")
	if i.Version != "v1.2.3" || !strings.HasPrefix(i.Go, "go") || i.OS == "" || i.Arch == "" {
		t.Fatalf("Describe: %+v", i)
	}
	if s := i.String(); s != "v1.2.3 ("+i.Go+", "+i.OS+"/"+i.Arch+")" {
		t.Errorf("String: %q", s)
	}
	var b strings.Builder
	if err := i.Print(&b, "kregress"); err != nil || b.String() != "kregress "+i.String()+"\n" {
		t.Errorf("Print: %v %q", err, b.String())
	}
}

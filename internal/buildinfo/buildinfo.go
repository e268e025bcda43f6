// Package buildinfo says which kregress a binary is: the version make
// stamps into it (git describe), or, for a binary built otherwise (go
// build, go install, go run), what the Go toolchain recorded about the
// module, so a run's provenance and `kregress version` never say only
// "dev".
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Unstamped is the value of a -X version variable that make did not set.
const Unstamped = "dev"

// Version is stamped when make set it; else the module version the Go
// toolchain recorded (go install ...@v1.2.3); else the VCS revision it
// recorded (go build in a git checkout without -buildvcs=false), marked
// -dirty for uncommitted changes; else a sentence saying there is none.
func Version(stamped string) string {
	bi, ok := debug.ReadBuildInfo()
	return fromBuildInfo(stamped, bi, ok)
}

func fromBuildInfo(stamped string, bi *debug.BuildInfo, ok bool) string {
	if stamped != "" && stamped != Unstamped {
		return stamped
	}
	if !ok || bi == nil {
		return "unknown (no build information: build with make)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += "-dirty"
		}
		return "devel-" + rev
	}
	return "devel (no version information recorded: build with make for git describe)"
}

// Info is what a binary says it is (kregress version, -f json for
// Info itself).
type Info struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// Describe is this binary's Info: its version (Version of stamped), the
// Go toolchain and the platform.
func Describe(stamped string) Info {
	return Info{Version: Version(stamped), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// Print writes "NAME VERSION (GO, OS/ARCH)" and a newline on w: what
// `NAME version` prints.
func (i Info) Print(w io.Writer, name string) error {
	_, err := fmt.Fprintln(w, name, i)
	return err
}

// String is "VERSION (GO, OS/ARCH)".
func (i Info) String() string { return fmt.Sprintf("%s (%s, %s/%s)", i.Version, i.Go, i.OS, i.Arch) }

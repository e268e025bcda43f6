package kernel

import "github.com/kregress/kregress/patches"

// Request is one kernel to build.
type Request struct {
	Source  Source
	Family  string
	Variant *patches.Variant
	// Harness patches go under the variant's own (patches/manifest.yaml).
	Harness    []*patches.Patch
	BaseConfig string // make target: tinyconfig, defconfig, ...
	Fragments  []Fragment
	// Fuzz lets up to Fuzz context lines of a hunk differ; 0 is strict.
	Fuzz int
	// AllowSymlinks lets patches create symlinks (mode 120000), refused
	// by default: a link is a way out of the tree for a later patch.
	AllowSymlinks bool
}

// Patches is the full series the request applies: harness, then the
// variant's own.
func (r Request) Patches() []*patches.Patch {
	return append(append([]*patches.Patch(nil), r.Harness...), r.Variant.Files...)
}

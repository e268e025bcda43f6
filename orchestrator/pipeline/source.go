package pipeline

import (
	"fmt"

	"github.com/kregress/kregress/orchestrator/config"
	"github.com/kregress/kregress/orchestrator/kernel"
	"github.com/kregress/kregress/patches"
)

// Source builds the kernel source the config names: the base.
func Source(k config.Kernel) (kernel.Source, error) {
	switch k.Source {
	case "debian":
		return kernel.DebianSource{Package: k.DebianPackage}, nil
	case "git":
		return kernel.GitSource{Tree: k.GitTree, Ref: k.GitRef, AllowDirty: k.AllowDirty}, nil
	}
	return nil, fmt.Errorf("kernel.source %q: want debian or git", k.Source)
}

// VariantSource is the base, or the variant's own ref of kernel.git_tree.
func VariantSource(k config.Kernel, v *patches.Variant) (kernel.Source, error) {
	if v.Ref == "" {
		return Source(k)
	}
	if k.Source != "git" {
		return nil, fmt.Errorf("variant %s names ref %q, but kernel.source is %s: set kernel.source: git and kernel.git_tree", v.Name, v.Ref, k.Source)
	}
	return kernel.GitSource{Tree: k.GitTree, Ref: v.Ref, AllowDirty: k.AllowDirty}, nil
}

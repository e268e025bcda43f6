package kernel

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kregress/kregress/internal/regularfile"
	"github.com/kregress/kregress/results/verdict"
)

// NotKernelTreeError is a source whose unpacked tree is not a Linux
// source tree: it would fail only at make, after the image and the
// first build, or worse, pass the host's checks (a tree without trace
// headers has no tracepoint to lack). It is the user's to fix.
type NotKernelTreeError struct {
	Source  string   // the source as the user named it (Source.String)
	Missing []string // what a kernel tree has and this one lacks
}

func (e *NotKernelTreeError) Error() string {
	return fmt.Sprintf("%s is not a Linux kernel source tree: it has no %s", e.Source, strings.Join(e.Missing, ", no "))
}

// ExitStatus is a usage error's: the source named is not a kernel tree.
func (e *NotKernelTreeError) ExitStatus() verdict.Exit { return verdict.ExitUsage }

// CheckTree refuses tree (unpacked from source, named in the error) when
// it lacks what every kernel tree kregress can build and measure has: a
// top-level Makefile that sets VERSION and PATCHLEVEL, and trace event
// headers under include/trace/events (what the host reads to tell which
// tracepoints a kernel defines).
func CheckTree(tree, source string) error {
	var missing []string
	if lacks := makefileLacks(tree); len(lacks) > 0 {
		missing = append(missing, "top-level Makefile setting "+strings.Join(lacks, " and "))
	}
	if h, _ := filepath.Glob(filepath.Join(tree, "include", "trace", "events", "*.h")); len(h) == 0 {
		missing = append(missing, "include/trace/events/*.h")
	}
	if len(missing) > 0 {
		return &NotKernelTreeError{Source: source, Missing: missing}
	}
	return nil
}

// maxMakefile bounds the tree's top-level Makefile (a real one is under
// 100 KiB); it is opened as any file of a tree is
// (regularfile.OpenBelow: a link to /dev/zero is refused).
const maxMakefile = 1 << 20

// makefileLacks returns which of VERSION and PATCHLEVEL the top-level
// Makefile's opening lines do not set (both when there is none).
func makefileLacks(tree string) []string {
	want := []string{"VERSION", "PATCHLEVEL"}
	f, err := regularfile.OpenBelow(tree, "Makefile", maxMakefile)
	if err != nil {
		return want
	}
	defer f.Close()
	set := map[string]bool{}
	sc := bufio.NewScanner(f)
	for i := 0; sc.Scan() && i < 50; i++ { // the lines open the Makefile
		if k, _, ok := strings.Cut(sc.Text(), "="); ok {
			set[strings.TrimSpace(k)] = true
		}
	}
	var lacks []string
	for _, k := range want {
		if !set[k] {
			lacks = append(lacks, k)
		}
	}
	return lacks
}

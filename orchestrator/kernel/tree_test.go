package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A tree that is not a kernel is refused naming the source and each
// thing it lacks; a kernel-shaped tree passes (hostile audit: a git tree
// that was no kernel passed the dry run).
func TestCheckTree(t *testing.T) {
	tree := func(files map[string]string) string {
		dir := t.TempDir()
		for name, data := range files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	const header = "include/trace/events/cgroup.h"
	cases := []struct {
		name  string
		files map[string]string
		want  []string // in the error; none: accepted
	}{
		{"kernel", map[string]string{"Makefile": "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\n", header: "TRACE_EVENT(x,\n"}, nil},
		{"empty", nil, []string{"no top-level Makefile setting VERSION and PATCHLEVEL", "no include/trace/events/*.h"}},
		{"other project", map[string]string{"Makefile": "all:\n\tcc -o x x.c\n", "x.c": "int main(){}\n"}, []string{"VERSION and PATCHLEVEL", "include/trace/events"}},
		{"no patchlevel", map[string]string{"Makefile": "VERSION = 6\n", header: "TRACE_EVENT(x,\n"}, []string{"it has no top-level Makefile setting PATCHLEVEL"}},
		{"no trace headers", map[string]string{"Makefile": "VERSION = 6\nPATCHLEVEL = 1\n"}, []string{"it has no include/trace/events/*.h"}},
	}
	for _, c := range cases {
		err := CheckTree(tree(c.files), "git tree /src/mine at main")
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var nk *NotKernelTreeError
		if !errors.As(err, &nk) || !strings.Contains(err.Error(), "git tree /src/mine at main is not a Linux kernel source tree") {
			t.Errorf("%s: %v, want a NotKernelTreeError naming the source", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}

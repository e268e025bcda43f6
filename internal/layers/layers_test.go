package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// The layers, lowest first. A package may import its own layer and those
// below, never one above (an "arrow back up"):
//
//	0 guest, images, patches, internal: what runs in the guest, what the
//	  guest image and kernel are made of, and small leaf helpers
//	1 results: the store, comparison and reports of measured runs
//	2 orchestrator: building, booting, running and judging cells
//	3 orchestrator/cmd: the commands, which may use everything
//
// Test files count too: a test that imports upward ties the lower package
// to the upper one's build all the same.
var layerOf = []struct {
	prefix string
	layer  int
}{
	// Longest prefix first: orchestrator/cmd is above orchestrator.
	{"orchestrator/cmd", 3},
	{"orchestrator", 2},
	{"results", 1},
	{"guest", 0},
	{"images", 0},
	{"patches", 0},
	{"internal", 0},
}

var layerNames = []string{"guest/images/patches/internal", "results", "orchestrator", "orchestrator/cmd"}

// layer returns the layer of a path inside the module, and false for a
// path the table does not place.
func layer(rel string) (int, bool) {
	for _, l := range layerOf {
		if rel == l.prefix || strings.HasPrefix(rel, l.prefix+"/") {
			return l.layer, true
		}
	}
	return 0, false
}

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// modulePackages lists the module's packages with their imports.
func modulePackages(t *testing.T) (module string, pkgs []pkg) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	module = strings.TrimSpace(string(out))
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.Bytes())
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return module, pkgs
}

// arrowsUp lists the imports of pkgs that run to a higher layer, and the
// packages no layer places.
func arrowsUp(module string, pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		from := strings.TrimPrefix(p.ImportPath, module+"/")
		lf, ok := layer(from)
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in no layer (place it in layers_test.go)", from))
			continue
		}
		for _, imp := range append(append(p.Imports, p.TestImports...), p.XTestImports...) {
			to, ours := strings.CutPrefix(imp, module+"/")
			if !ours {
				continue
			}
			if lt, ok := layer(to); ok && lt > lf {
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s)", from, layerNames[lf], to, layerNames[lt]))
			}
		}
	}
	return bad
}

func TestNoArrowBackUp(t *testing.T) {
	module, pkgs := modulePackages(t)
	seen := map[int]int{}
	for _, p := range pkgs {
		if l, ok := layer(strings.TrimPrefix(p.ImportPath, module+"/")); ok {
			seen[l]++
		}
	}
	for l := range layerNames {
		if seen[l] == 0 {
			t.Fatalf("go list found no package of layer %s: %d packages in all", layerNames[l], len(pkgs))
		}
	}
	for _, b := range arrowsUp(module, pkgs) {
		t.Error(b)
	}
}

// The rule itself: it flags upward imports, test imports included, and
// allows sideways and downward ones.
func TestArrowsUpFlagsOnlyUpward(t *testing.T) {
	m := "example.com/m"
	pkgs := []pkg{
		{ImportPath: m + "/images/initramfs", Imports: []string{"os", m + "/internal/filelock", m + "/guest/sshd"}},
		{ImportPath: m + "/images/cpio", TestImports: []string{m + "/orchestrator/remote"}},
		{ImportPath: m + "/results/compare", XTestImports: []string{m + "/orchestrator/config"}},
		{ImportPath: m + "/orchestrator/selftests", Imports: []string{m + "/results/compare"}},
		{ImportPath: m + "/orchestrator/vm", Imports: []string{m + "/orchestrator/cmd/kregress"}},
		{ImportPath: m + "/orchestrator/cmd/kregress", Imports: []string{m + "/orchestrator/vm", m + "/results"}},
		{ImportPath: m + "/tools/x"},
	}
	got := strings.Join(arrowsUp(m, pkgs), "\n")
	for _, want := range []string{
		"images/cpio (guest/images/patches/internal) imports orchestrator/remote (orchestrator)",
		"results/compare (results) imports orchestrator/config (orchestrator)",
		"orchestrator/vm (orchestrator) imports orchestrator/cmd/kregress (orchestrator/cmd)",
		"tools/x is in no layer",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("not flagged: %s\ngot:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n") + 1; n != 4 {
		t.Errorf("%d findings, want 4:\n%s", n, got)
	}
}

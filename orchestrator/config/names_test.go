package config_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/guest/workload/bench"
	"github.com/kregress/kregress/orchestrator/config"
)

// maxSpellings is how many non-test Go files may spell a built-in name:
// the package that declares it and one more (a fixture or a list that
// means the same string for another reason: a patch family, a seed
// experiment of that name).
const maxSpellings = 2

// Adding a workload touches its own package and one registration line
// (guest/workload): nothing else spells a registered workload's name, so
// nothing else has to change with the next one. A file spells a name when
// one of its strings is that name, or lists it beside another registered
// name (a list written by hand, which the next workload would have to
// join); a command's help text (spellings skips it), prose that mentions
// a name ("the rstat flush loop": rstat and execve are kernel words too),
// import paths and struct tags do not. The built-in experiments on the
// benchmark workload are their YAML files, so their names obey the same
// rule.
func TestNamesSpelledInOnePlace(t *testing.T) {
	var names []string
	for _, w := range workload.All() {
		names = append(names, w.Name)
	}
	for _, e := range config.Experiments() {
		cfg, _, err := config.Load(e, nil)
		if err != nil {
			t.Fatalf("built-in experiment %s: %v", e, err)
		}
		if cfg.Workload.Name == bench.Name {
			names = append(names, e)
		}
	}
	if len(names) == len(workload.All()) {
		t.Fatalf("no built-in experiment runs the %s workload", bench.Name)
	}
	root, _ := moduleRoot(t)
	spelled := nameSpellings(t, root, codeOutside(t, root, ""), names)
	for _, name := range names {
		if files := spelled[name]; len(files) > maxSpellings {
			t.Errorf("%q is spelled in %d non-test Go files (at most %d: derive it from the registry, guest/workload, or its package's Name):\n  %s",
				name, len(files), maxSpellings, strings.Join(files, "\n  "))
		}
	}
	// Every workload's package declares its name: a scan that finds a
	// registered name nowhere is broken, not clean.
	for _, w := range workload.All() {
		if len(spelled[w.Name]) == 0 {
			t.Errorf("no file declares workload %q: the scan is broken", w.Name)
		}
	}
}

// The rule counts what it says: a string equal to a name and a list; not
// an import path, a struct tag, prose, help text, or a longer name with
// the name inside it.
func TestNameSpellingsCountsNamesAndLists(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"exact.go":    "package x\nconst a = \"alpha\"\n",
		"list.go":     "package x\nconst h = \"runs: alpha, beta-2 (or none)\"\n",
		"prose.go":    "package x\nimport _ \"x/alpha\"\nconst p = \"the alpha loop\"\ntype T struct{ F int `yaml:\"alpha\"` }\n",
		"longer.go":   "package x\nconst l = \"alpha-2\"\nconst m = \"alphabet, beta-2x\"\n",
		"examples.go": "package x\nconst e = \"x metrics alpha\\n x metrics beta-2\"\n",
		"help.go":     "package x\nvar c = struct{ Long string }{Long: \"alpha, beta-2\"}\n",
	}
	var paths []string
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, name)
	}
	got := nameSpellings(t, dir, paths, []string{"alpha", "beta-2"})
	want := map[string][]string{"alpha": {"exact.go", "list.go"}, "beta-2": {"list.go"}}
	for name, files := range want {
		if !slices.Equal(got[name], files) {
			t.Errorf("%s: spelled in %v, want %v", name, got[name], files)
		}
	}
}

// nameSpellings maps each of names to the files (relative to root) whose
// strings spell it, sorted.
func nameSpellings(t *testing.T, root string, files, names []string) map[string][]string {
	t.Helper()
	word := regexp.MustCompile(`[\w-]+`)
	out := map[string][]string{}
	for _, f := range files {
		in := map[string]bool{}
		spellings(t, filepath.Join(root, f), true, func(string) bool { return false }, func(s string) bool {
			if slices.Contains(names, s) {
				in[s] = true
				return true
			}
			// A list: two names with nothing but punctuation and space
			// between them.
			words := word.FindAllString(s, -1)
			for i := 1; i < len(words); i++ {
				if slices.Contains(names, words[i-1]) && slices.Contains(names, words[i]) {
					in[words[i-1]], in[words[i]] = true, true
				}
			}
			return false
		})
		for n := range in {
			out[n] = append(out[n], f)
		}
	}
	for n := range out {
		slices.Sort(out[n])
	}
	return out
}

package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kregress/kregress/orchestrator/config"
	_ "github.com/kregress/kregress/orchestrator/executor/kubernetes"
	_ "github.com/kregress/kregress/orchestrator/executor/slurm"
)

// With the executors linked, every key has help and a flag marked as it.
func TestEveryKeyHasHelpAndAFlag(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	if err := config.AddFlags(fs, config.Keys()); err != nil {
		t.Fatal(err)
	}
	for _, k := range config.Keys() {
		if config.Help(k) == "" {
			t.Errorf("key %s has no help", k)
		}
		f := fs.Lookup(config.FlagFor(k))
		if f == nil || f.Annotations[config.FlagAnnotation][0] != k {
			t.Errorf("key %s: no flag --%s marked as it", k, config.FlagFor(k))
		}
	}
}

// The executor keys' help names the kinds each concerns, from the
// registry: a new kind appears in it without an edit here.
func TestExecutorHelpFromTheRegistry(t *testing.T) {
	for key, want := range map[string]string{
		"executor.parallel":        "local: guests at once, each pinned to its own vm.cpus host cores",
		"executor.slurm.poll":      "slurm: how often the array's state is read",
		"executor.detach":          "slurm: return once the array is submitted; kregress results show RUN shows it fill in",
		"executor.kubernetes.kvm":  "kubernetes: device-plugin (devices.kubevirt.io/kvm) or privileged (the host's /dev/kvm)",
		"executor.no_such_setting": "",
	} {
		if got := config.Help(key); got != want {
			t.Errorf("%s: help %q, want %q", key, got, want)
		}
	}
	// Other tests of this binary register kinds of their own.
	for key, want := range map[string]string{
		"executor.kind":       "where cells run: local, kubernetes (writes an Indexed Job manifest), slurm (a job array; set executor.shared_dir)",
		"executor.shared_dir": "kubernetes, slurm",
	} {
		if got := config.Help(key); !strings.HasPrefix(got, want) {
			t.Errorf("%s: help %q, want it to begin %q", key, got, want)
		}
	}
}

// registry is the one file outside an executor's package that may name it.
const registry = "orchestrator/config/executors.go"

// No code outside an executor's own package and the registry spells its
// name: no identifier holds it, no string (a kind compared, a key, a
// yaml tag, a command's help text) has it as a word, in any case.
// Imports are the registration lines; comments and tests may name it:
// a command's help that shows an executor takes it from the registry
// (HelpExample). Local is the registry's default and too common a word
// to search for beyond an exact "local" string, and only among the
// orchestrator's and results' files (the guest has a trace clock of
// that name).
func TestNoExecutorNameOutsideItsPackage(t *testing.T) {
	root, module := moduleRoot(t)
	for _, k := range config.Executors() {
		name := k.Info().Name
		own := strings.TrimPrefix(reflect.TypeOf(k).PkgPath(), module+"/")
		word := regexp.MustCompile(`(?i)(^|[^/\w])` + regexp.QuoteMeta(name) + `([^/\w]|$)`)
		for _, f := range codeOutside(t, root, own) {
			if name == config.LocalExecutor && !strings.HasPrefix(f, "orchestrator/") && !strings.HasPrefix(f, "results/") {
				continue
			}
			for _, hit := range spellings(t, filepath.Join(root, f), false, func(ident string) bool {
				return name != config.LocalExecutor && strings.Contains(strings.ToLower(ident), name)
			}, func(s string) bool {
				if name == config.LocalExecutor {
					return s == name
				}
				return word.MatchString(s)
			}) {
				t.Errorf("%s: %s spells executor %s outside %s and the registry", f, hit, name, own)
			}
		}
	}
}

// moduleRoot is the module's directory and path.
func moduleRoot(t *testing.T) (root, module string) {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Path}}").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	root, module, _ = strings.Cut(strings.TrimSpace(string(out)), " ")
	return root, module
}

// codeOutside lists the module's non-test Go files, relative to root,
// outside the package directory own (and its subpackages) and the
// registry.
func codeOutside(t *testing.T, root, own string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && (rel == own || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.IsDir(), !strings.HasSuffix(rel, ".go"), strings.HasSuffix(rel, "_test.go"), rel == registry:
			return nil
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Go files found")
	}
	return files
}

// helpFields hold a command's help text (cobra.Command): prose.
var helpFields = map[string]bool{"Short": true, "Long": true, "Example": true}

// spellings are the identifiers and string literals (imports aside, and
// a command's help text when skipHelp) of a Go file that ident or str
// says spell a name, with their lines.
func spellings(t *testing.T, path string, skipHelp bool, ident, str func(string) bool) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[*ast.BasicLit]bool{}
	for _, imp := range file.Imports {
		imports[imp.Path] = true
	}
	var hits []string
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			return false
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && skipHelp && helpFields[k.Name] {
				return false
			}
		case *ast.Ident:
			if ident(n.Name) {
				hits = append(hits, fset.Position(n.Pos()).String()+" identifier "+n.Name)
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING || imports[n] {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				s = n.Value
			}
			if str(s) {
				hits = append(hits, fset.Position(n.Pos()).String()+" string "+n.Value)
			}
		}
		return true
	})
	return hits
}

// More vCPUs than host cores warns, naming both figures, the cost and
// where the stall is written up; vCPUs that fit, and guests another
// executor runs elsewhere, say nothing.
func TestOvercommitWarns(t *testing.T) {
	c := &config.Config{}
	c.VM.CPUs = 64
	w := c.Overcommit(2)
	for _, want := range []string{"vm.cpus 64", "this host's 2 cores", "slower", "docs/seeds.md", "keep vm.cpus <= 2"} {
		if !strings.Contains(w, want) {
			t.Errorf("warning %q lacks %q", w, want)
		}
	}
	c.VM.CPUs = 2
	if w := c.Overcommit(2); w != "" {
		t.Errorf("2 vCPUs on 2 cores: %q", w)
	}
	c.VM.CPUs, c.Executor.Kind = 64, "slurm"
	if w := c.Overcommit(2); w != "" {
		t.Errorf("guests on slurm nodes: %q", w)
	}
}

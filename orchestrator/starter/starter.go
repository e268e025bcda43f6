// Package starter writes the starter experiment file of `kregress init`:
// one family of two variants, "base" (the baseline) and "patched", for
// the user's patches or git tree, commented so that it can be edited and
// read by `kregress run -c FILE` as it is.
package starter

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/usage"
)

// DefaultFile is the file init writes when given none.
const DefaultFile = "experiment.yaml"

// Spec is what the starter file measures: the flags of kregress init.
type Spec struct {
	// File is the file to write; it must not exist.
	File string
	// Patches are the patched variant's patch files (written relative
	// to File when they can be).
	Patches []string
	// GitTree is the user's kernel tree ("": the configured source);
	// BaseRef and CandRef are refs of it.
	GitTree, BaseRef, CandRef string
	// Workload is the workload's name (guest/workload).
	Workload string
	// Name is the experiment's name ("": File without its extension).
	Name string
}

// starter is what `kregress init` writes: a commented experiment file
// that `kregress run -c` reads as it is.
var starter = template.Must(template.New("starter").Funcs(template.FuncMap{"join": strings.Join}).Parse(`# A kregress experiment, {{.Name}}: {{.What}}.
# Check it without building anything:  kregress run -c {{.File}} --dry-run
# Run it:                               kregress run -c {{.File}}
# Every key and its default:            kregress config -c {{.File}}
# Metrics the workload reports:         kregress metrics {{.Workload}}
experiment: {{.Name}}
family: {{.Name}}
families:
  {{.Name}}:
    description: "{{.What}}"
    workload: {{.Workload}}      # also: {{join .Workloads ", "}}
    baseline: base
    # Each variant is the kernel below ({{if .GitTree}}or its own ref: of kernel.git_tree{{else}}kernel.source{{end}})
    # plus its patches (paths relative to this file, applied in order).
    variants:
      base:{{if .BaseRef}}
        ref: {{.BaseRef}}{{else}} {}{{end}}
      patched:{{if .CandRef}}
        ref: {{.CandRef}}{{end}}{{if .Patches}}
        patches:{{range .Patches}}
          - {{.}}{{end}}{{end}}{{if and (not .CandRef) (not .Patches)}}
        patches: []    # add your patch files here{{end}}
# Boots per variant. Each repetition boots every variant once, interleaved
# (A B A B ...). How small a change a number of boots can see depends on
# this host: kregress noise -c THIS-FILE measures it.
repetitions: 8
kernel:
{{- if .GitTree}}
  source: git
  git_tree: {{.GitTree}}
  git_ref: ""          # the base of variants without a ref: of their own; empty: HEAD
{{- else}}
  source: debian
  debian_package: linux-source-6.12
{{- end}}
  base_config: tinyconfig
  fragments: [guest.config]
vm:
  cpus: 2              # keep vCPUs <= host cores when a metric is a latency
  accel: auto          # KVM when a probe guest boots under it, else TCG
workload:
  name: {{.Workload}}
  duration: 10s
# primary_metrics: []  # judged first; empty: the workload's own
# noise_floor_pct: {}  # e.g. {reads_per_sec: 2}: smaller changes are never called
`))

type starterData struct {
	Name, What, File, Workload string
	Workloads                  []string
	GitTree, BaseRef, CandRef  string
	Patches                    []string
}

// Write writes the starter file s describes, never replacing a file, and
// returns what it measures in words. What the user must fix (an unknown
// workload, refs without a tree, a missing patch, an existing file) is
// a usage error.
func Write(s Spec) (string, error) {
	if err := checkFile(s.File); err != nil {
		return "", err
	}
	d, err := s.data()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := starter.Execute(&b, d); err != nil {
		return "", err
	}
	// O_EXCL: an existing file (an experiment someone wrote) is
	// never replaced, not even in a race with another init.
	f, err := os.OpenFile(s.File, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return "", usage.Wrap(fmt.Errorf("%s exists: kregress init never overwrites (give another FILE, or remove it)", s.File))
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return "", fmt.Errorf("%s: %w", s.File, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("%s: %w", s.File, err)
	}
	return d.What, nil
}

// Create is `kregress init`: it writes the starter file s describes
// (Write) and says on out what it wrote and how to check it.
func Create(out io.Writer, s Spec) error {
	what, err := Write(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "wrote %s: %s\ncheck it: kregress run -c %s --dry-run\n", s.File, what, s.File)
	return err
}

// checkFile refuses, as usage errors, a FILE init cannot write: "-"
// (which would be a file named -, where -o - is refused elsewhere) and a
// path whose directory does not exist, naming it.
func checkFile(file string) error {
	if file == "-" {
		return usage.Wrap(errors.New(`init FILE "-": the experiment is written to a file, give its name (default ` + DefaultFile + ")"))
	}
	dir := filepath.Dir(file)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usage.Wrap(fmt.Errorf("cannot write %s: its directory %s does not exist", file, dir))
	}
	return nil
}

// data checks s and fills the template's fields: the tree made absolute,
// the patches relative to the file, what it measures in words.
func (s Spec) data() (starterData, error) {
	if workload.Metrics(s.Workload) == nil {
		return starterData{}, usage.Wrap(fmt.Errorf("--workload.name %q: want one of %s", s.Workload, strings.Join(workload.Sorted(), ", ")))
	}
	if (s.BaseRef != "" || s.CandRef != "") && s.GitTree == "" {
		return starterData{}, usage.Wrap(errors.New("--base and --candidate are refs of --kernel.git-tree: give --kernel.git-tree"))
	}
	// The other workloads, for the file's "also:" comment.
	others := slices.DeleteFunc(workload.Sorted(), func(w string) bool { return w == s.Workload })
	d := starterData{File: s.File, Workload: s.Workload, Workloads: others, BaseRef: s.BaseRef, CandRef: s.CandRef}
	d.Name = s.Name
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
	}
	if s.GitTree != "" {
		abs, err := filepath.Abs(s.GitTree)
		if err != nil {
			return starterData{}, err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return starterData{}, usage.Wrap(fmt.Errorf("--kernel.git-tree %s: not a directory", s.GitTree))
		}
		d.GitTree = abs
		if d.BaseRef == "" {
			d.BaseRef = "HEAD"
		}
	}
	for _, p := range s.Patches {
		if _, err := os.Stat(p); err != nil {
			return starterData{}, usage.Wrap(fmt.Errorf("--patch %s: %w", p, err))
		}
		d.Patches = append(d.Patches, relativeTo(filepath.Dir(s.File), p))
	}
	switch {
	case d.GitTree != "" && (d.CandRef != "" || len(d.Patches) > 0):
		d.What = "your tree at " + d.BaseRef + " against " + strings.Join(append(nonEmpty(d.CandRef), d.Patches...), " + ")
	case len(d.Patches) > 0:
		d.What = "the base kernel against base + " + strings.Join(d.Patches, " + ")
	default:
		d.What = "the base kernel against base + your patches (list them under patched)"
	}
	return d, nil
}

// relativeTo writes path relative to dir when it can (an experiment file
// and its patches move together), absolute otherwise.
func relativeTo(dir, path string) string {
	absDir, err1 := filepath.Abs(dir)
	abs, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	if rel, err := filepath.Rel(absDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/config"
)

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

func newInit() *cobra.Command {
	var (
		patchPaths                []string
		gitTree, baseRef, candRef string
		workload, name            string
	)
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "write a commented starter experiment file for your patches or your git tree (never overwrites)",
		Long: `init writes FILE (default experiment.yaml): an experiment with one family of
two variants, "base" (the baseline) and "patched", which kregress run -c
FILE measures. With --patch, patched is base + those patches (paths are
written relative to FILE); with --kernel.git-tree, the kernel comes from your
tree, base at --base (default HEAD) and patched at --candidate (default:
the base) plus any --patch. The file is commented; edit it, then check it with
kregress run -c FILE --dry-run. An existing FILE is never overwritten.`,
		Example: `  kregress init --patch 0001-my-fix.patch
  kregress init my.yaml --kernel.git-tree ~/linux --base v6.12 --candidate my-branch
  kregress init --patch outgoing/ --workload.name execve`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := "experiment.yaml"
			if len(args) == 1 {
				file = args[0]
			}
			if metrics.For(workload) == nil {
				return usage.Wrap(fmt.Errorf("--workload.name %q: want one of %s", workload, strings.Join(metrics.Workloads(), ", ")))
			}
			if (baseRef != "" || candRef != "") && gitTree == "" {
				return usage.Wrap(errors.New("--base and --candidate are refs of --kernel.git-tree: give --kernel.git-tree"))
			}
			// The other workloads, for the file's "also:" comment.
			others := slices.DeleteFunc(metrics.Workloads(), func(w string) bool { return w == workload })
			d := starterData{File: file, Workload: workload, Workloads: others, BaseRef: baseRef, CandRef: candRef}
			d.Name = name
			if d.Name == "" {
				d.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			}
			if gitTree != "" {
				abs, err := filepath.Abs(gitTree)
				if err != nil {
					return err
				}
				if st, err := os.Stat(abs); err != nil || !st.IsDir() {
					return usage.Wrap(fmt.Errorf("--kernel.git-tree %s: not a directory", gitTree))
				}
				d.GitTree = abs
				if d.BaseRef == "" {
					d.BaseRef = "HEAD"
				}
			}
			for _, p := range patchPaths {
				if _, err := os.Stat(p); err != nil {
					return usage.Wrap(fmt.Errorf("--patch %s: %w", p, err))
				}
				d.Patches = append(d.Patches, relativeTo(filepath.Dir(file), p))
			}
			switch {
			case d.GitTree != "" && (d.CandRef != "" || len(d.Patches) > 0):
				d.What = "your tree at " + d.BaseRef + " against " + strings.Join(append(nonEmpty(d.CandRef), d.Patches...), " + ")
			case len(d.Patches) > 0:
				d.What = "the base kernel against base + " + strings.Join(d.Patches, " + ")
			default:
				d.What = "the base kernel against base + your patches (list them under patched)"
			}
			var b strings.Builder
			if err := starter.Execute(&b, d); err != nil {
				return err
			}
			// O_EXCL: an existing file (an experiment someone wrote) is
			// never replaced, not even in a race with another init.
			f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
			if errors.Is(err, fs.ErrExist) {
				return usage.Wrap(fmt.Errorf("%s exists: kregress init never overwrites (give another FILE, or remove it)", file))
			}
			if err != nil {
				return err
			}
			if _, err := f.WriteString(b.String()); err != nil {
				f.Close()
				return fmt.Errorf("%s: %w", file, err)
			}
			if err := f.Close(); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %s\ncheck it: kregress run -c %s --dry-run\n", file, d.What, file)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&patchPaths, "patch", nil, "a patch (diff, git format-patch file, mbox, directory of *.patch, quilt series) for the patched variant; repeat for more")
	f.StringVar(&gitTree, config.FlagFor("kernel.git_tree"), "", "your kernel git repository: the variants are refs of it")
	f.StringVar(&baseRef, "base", "", "with --kernel.git-tree: the baseline's ref (default HEAD)")
	f.StringVar(&candRef, "candidate", "", "with --kernel.git-tree: the patched variant's ref (default: the base, plus --patch)")
	f.StringVar(&workload, config.FlagFor("workload.name"), "rstat", "the workload: "+strings.Join(metrics.Workloads(), ", "))
	f.StringVar(&name, "name", "", "the experiment's name (default: FILE without its extension)")
	return cmd
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

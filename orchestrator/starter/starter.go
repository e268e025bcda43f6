// Package starter writes the starter experiment file of `kregress init`:
// one family of two variants, "base" (the baseline) and "patched", for
// the user's patches or git tree, commented so that it can be edited and
// read by `kregress run -c FILE` as it is.
package starter

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/workload"
	"github.com/kregress/kregress/internal/names"
	"github.com/kregress/kregress/internal/usage"
	"github.com/kregress/kregress/orchestrator/kernel"
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

type starterData struct {
	Name, What, File, Workload string
	Workloads                  []string
	GitTree, BaseRef, CandRef  string
	Patches                    []string
}

// The file is built as a YAML node tree and written by the YAML encoder,
// never by a text template: a ref, a name or a path is a value the user
// typed, and only the encoder quotes it so that it reads back as typed (a
// ref holding "#" or a newline is neither cut short nor able to add keys).

// str is a string scalar: the encoder quotes it whenever YAML would
// otherwise read it as something else (a number, null, a comment).
func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func integer(v int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(v)}
}

func flowSeq(items ...string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, it := range items {
		n.Content = append(n.Content, str(it))
	}
	return n
}

// mapping is a block mapping of key/value pairs.
type mapping struct{ n *yaml.Node }

func newMapping() mapping { return mapping{&yaml.Node{Kind: yaml.MappingNode}} }

// add appends key: value; head is a comment above the key, line one after
// the value ("" for none).
func (m mapping) add(key string, value *yaml.Node, head, line string) mapping {
	k := str(key)
	k.HeadComment = head
	if line != "" {
		if value.Kind == yaml.ScalarNode || value.Style == yaml.FlowStyle {
			value.LineComment = line
		} else {
			k.LineComment = line
		}
	}
	m.n.Content = append(m.n.Content, k, value)
	return m
}

// document is the starter file d describes, as YAML nodes.
func (d starterData) document() *yaml.Node {
	base := newMapping()
	if d.BaseRef != "" {
		base.add("ref", str(d.BaseRef), "", "")
	}
	patched := newMapping()
	// Without --candidate, patched is the base plus the patches: at the
	// base's ref, never at the tree's HEAD, so that the patches are the
	// only difference measured.
	if ref := cmp.Or(d.CandRef, d.BaseRef); ref != "" {
		patched.add("ref", str(ref), "", "")
	}
	switch {
	case len(d.Patches) > 0:
		patched.add("patches", blockSeq(d.Patches), "", "")
	case d.CandRef == "":
		patched.add("patches", flowSeq(), "", "add your patch files here")
	}
	if len(base.n.Content) == 0 {
		base.n.Style = yaml.FlowStyle
	}
	where := "kernel.source"
	if d.GitTree != "" {
		where = "or its own ref: of kernel.git_tree"
	}
	variants := newMapping().
		add("base", base.n, "", "").
		add("patched", patched.n, "", "")
	family := newMapping().
		add("description", str(d.What), "", "").
		add("workload", str(d.Workload), "", "also: "+strings.Join(d.Workloads, ", ")).
		add("baseline", str("base"), "", "").
		add("variants", variants.n, "Each variant is the kernel below ("+where+")\nplus its patches (paths relative to this file, applied in order).", "")
	kernel := newMapping()
	if d.GitTree != "" {
		kernel.add("source", str("git"), "", "").
			add("git_tree", str(d.GitTree), "", "").
			add("git_ref", str(d.BaseRef), "", "the base of variants without a ref: of their own")
	} else {
		kernel.add("source", str("debian"), "", "").
			add("debian_package", str("linux-source-6.12"), "", "")
	}
	kernel.add("base_config", str("tinyconfig"), "", "").
		add("fragments", flowSeq("guest.config"), "", "")
	vm := newMapping().
		add("cpus", integer(2), "", "keep vCPUs <= host cores when a metric is a latency").
		add("accel", str("auto"), "", "KVM when a probe guest boots under it, else TCG")
	workload := newMapping().
		add("name", str(d.Workload), "", "").
		add("duration", str("10s"), "", "")
	header := "A kregress experiment, " + d.Name + ": " + d.What + ".\n" +
		"Check it (builds and boots nothing; the first check unpacks the kernel source):\n" +
		"  kregress run -c " + d.File + " --dry-run\n" +
		"Run it:                               kregress run -c " + d.File + "\n" +
		"Every key and its default:            kregress config -c " + d.File + "\n" +
		"Metrics the workload reports:         kregress metrics " + d.Workload
	top := newMapping().
		add("experiment", str(d.Name), header, "").
		add("family", str(d.Name), "", "").
		add("families", newMapping().add(d.Name, family.n, "", "").n, "", "").
		add("repetitions", integer(8), "Boots per variant. Each repetition boots every variant once, interleaved\n"+
			"(A B A B ...). How small a change a number of boots can see depends on\n"+
			"this host: kregress noise -c THIS-FILE measures it.", "").
		add("kernel", kernel.n, "", "").
		add("vm", vm.n, "", "").
		add("workload", workload.n, "", "")
	top.n.FootComment = "primary_metrics: []  # judged first; empty: the workload's own\n" +
		"noise_floor_pct: {}  # e.g. {reads_per_sec: 2}: smaller changes are never called"
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{top.n}}
}

// blockSeq is a block sequence of strings (one patch a line).
func blockSeq(items []string) *yaml.Node {
	n := flowSeq(items...)
	n.Style = 0
	return n
}

// render writes d's file as YAML.
func (d starterData) render() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.document()); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
	text, err := d.render()
	if err != nil {
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
	if _, err := f.Write(text); err != nil {
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
	if w, _ := workload.Lookup(s.Workload); w.Declared != "" {
		// Its program, parser and metrics are the user's to write: a
		// file without them would not load.
		return starterData{}, usage.Wrap(fmt.Errorf("--workload.name %s: its program, output format and metrics go under workload.benchmark of the experiment file (docs/workloads.md#the-benchmark-workload has one to copy); init writes the built-in workloads' files", s.Workload))
	}
	if (s.BaseRef != "" || s.CandRef != "") && s.GitTree == "" {
		return starterData{}, usage.Wrap(errors.New("--base and --candidate are refs of --kernel.git-tree: give --kernel.git-tree"))
	}
	for flag, ref := range map[string]string{"--base": s.BaseRef, "--candidate": s.CandRef} {
		if strings.ContainsFunc(ref, unicode.IsControl) {
			return starterData{}, usage.Wrap(fmt.Errorf("%s %q: a git ref has no control characters (a newline, a tab); give one ref, as git log takes it", flag, ref))
		}
	}
	// The other workloads, for the file's "also:" comment.
	others := slices.DeleteFunc(workload.Sorted(), func(w string) bool { return w == s.Workload })
	d := starterData{File: s.File, Workload: s.Workload, Workloads: others, BaseRef: s.BaseRef, CandRef: s.CandRef}
	d.Name = s.Name
	if d.Name == "" {
		d.Name = strings.TrimSuffix(filepath.Base(s.File), filepath.Ext(s.File))
	}
	if err := names.Check(names.Experiment, d.Name); err != nil {
		flag := "--name"
		if s.Name == "" {
			flag = "FILE " + s.File + " (its name without the extension is the experiment's name; or give --name)"
		}
		return starterData{}, usage.Wrap(fmt.Errorf("%s: %w", flag, err))
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
		// Each ref written is checked as the dry run checks it: a file
		// naming a branch that does not exist is refused now, not at
		// its first run.
		for _, r := range []struct{ flag, ref string }{{"--base", d.BaseRef}, {"--candidate", d.CandRef}} {
			if r.ref == "" {
				continue
			}
			if _, err := (kernel.GitSource{Tree: abs, Ref: r.ref}).Commit(context.Background()); err != nil {
				return starterData{}, usage.Wrap(fmt.Errorf("%s %s: %w", r.flag, r.ref, err))
			}
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
		d.What = "your tree at " + d.BaseRef + " against " + strings.Join(append([]string{cmp.Or(d.CandRef, d.BaseRef)}, d.Patches...), " + ")
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

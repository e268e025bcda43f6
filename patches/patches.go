// Package patches loads the candidate patch manifest and its patch files,
// embedded in the binary so that a kregress build always carries the
// patches it was tested with. Load checks that every family names a
// baseline it has, every patch file exists and carries its header, and
// every variant is well formed; it never touches a kernel tree.
package patches

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kregress/kregress/internal/names"
	"gopkg.in/yaml.v3"
)

//go:embed manifest.yaml */*.patch
var embedded embed.FS

// Manifest is the parsed manifest.yaml.
type Manifest struct {
	// Harness patches go under every variant of every family, before the
	// variant's own: test-harness changes that must be the same for all.
	Harness  []string           `yaml:"harness"`
	Families map[string]*Family `yaml:"families"`
}

// Family is one experiment's set of kernel states.
type Family struct {
	Name        string `yaml:"-"`
	Description string `yaml:"description"`
	Seed        string `yaml:"seed"`
	Workload    string `yaml:"workload"`
	Baseline    string `yaml:"baseline"`
	// Kernels is the kernel series its patches and metrics fit
	// ("6.12-6.15"): every built-in family says; a user's may. A variant
	// whose patch does not apply is refused with it (kregress suggests
	// the families that fit the tree).
	Kernels KernelRange `yaml:"kernels,omitempty"`
	// ChangesLocking: the family's candidates change how the kernel
	// locks, so the correctness gate's debug pass (lockdep kernels) is on
	// by default for it (debug.pass: auto).
	ChangesLocking bool `yaml:"changes_locking,omitempty"`
	// Selftests are the family's correctness gate: the cgroup selftests
	// that exercise the code its candidates change. Empty: all of them.
	// An experiment's selftests.binaries overrides it.
	Selftests []string            `yaml:"selftests,omitempty"`
	Variants  map[string]*Variant `yaml:"variants"`
	// Harness is the manifest's harness patches: the pipeline puts them
	// under every variant when the experiment needs them.
	Harness []*Patch `yaml:"-"`
}

// Variant is a kernel state: a source revision (the configured base, or
// Ref of kernel.git_tree), an ordered list of patches on top, plus extra
// kernel cmdline.
type Variant struct {
	Name        string `yaml:"-"`
	Description string `yaml:"description,omitempty"`
	// Patches are paths: in a manifest, patch files relative to it; in
	// an experiment file, anything ReadSeries reads (a patch, an mbox, a
	// directory, a quilt series), relative to that file.
	Patches []string `yaml:"patches,omitempty"`
	// Ref is a commit of kernel.git_tree (branch, tag, id, HEAD~3);
	// empty means the configured base.
	Ref     string   `yaml:"ref,omitempty"`
	Cmdline string   `yaml:"cmdline,omitempty"`
	Expect  []Expect `yaml:"expect,omitempty"`
	// Files holds the loaded patches, in order.
	Files []*Patch `yaml:"-"`
}

// Expect is a string a file of the patched tree must contain.
type Expect struct {
	File     string `yaml:"file"`
	Contains string `yaml:"contains"`
}

// Patch is one loaded patch.
type Patch struct {
	Name   string   // where it came from: a path, or "mbox#3"
	Data   []byte   // the whole patch, header or mail included
	SHA256 string   // of Data
	Files  []string // every tree path the diff reads or writes, in order
	Diffs  []FileDiff
	// From the mail headers of `git format-patch` output or an mbox;
	// empty for a plain diff.
	Subject   string
	Author    string
	Date      string
	MessageID string

	rawSubject string // with its "[PATCH n/m]" tag, for ordering
}

// Load reads the manifest and patches embedded in the binary. Each of
// its patches must carry the What/Source/Base header.
func Load() (*Manifest, error) { return LoadFS(embedded) }

// LoadFS reads manifest.yaml and the header-checked patches it names from
// fsys.
func LoadFS(fsys fs.FS) (*Manifest, error) {
	raw, err := fs.ReadFile(fsys, "manifest.yaml")
	if err != nil {
		return nil, fmt.Errorf("patches: %w", err)
	}
	return loadManifest("manifest.yaml", raw, func(p string) ([]*Patch, error) {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("patches: %w", err)
		}
		patch, err := Parse(p, data)
		if err != nil {
			return nil, err
		}
		return []*Patch{patch}, nil
	})
}

// LoadDir reads a user's manifest directory: DIR/manifest.yaml, whose
// patch entries are anything ReadSeries reads, relative to DIR. User
// patches need no header.
func LoadDir(dir string) (*Manifest, error) {
	file := filepath.Join(dir, "manifest.yaml")
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("patches: %w (a patches directory holds a manifest.yaml naming its families)", err)
	}
	return loadManifest(file, raw, func(p string) ([]*Patch, error) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return ReadSeries(p)
	})
}

func loadManifest(name string, raw []byte, read func(string) ([]*Patch, error)) (*Manifest, error) {
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("patches: %s: %w", name, err)
	}
	if len(m.Families) == 0 {
		return nil, fmt.Errorf("patches: %s names no family", name)
	}
	var harness []*Patch
	for _, p := range m.Harness {
		ps, err := read(p)
		if err != nil {
			return nil, fmt.Errorf("patches: harness: %w", err)
		}
		harness = append(harness, ps...)
	}
	for fname, fam := range m.Families {
		fam.Harness = harness
		if err := fam.Load(fname, read); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// Load checks a family read from YAML and loads its variants' patches
// with read (one path -> one or more patches, in order).
func (fam *Family) Load(name string, read func(string) ([]*Patch, error)) error {
	fam.Name = name
	if err := names.Check(names.Family, name); err != nil {
		return fmt.Errorf("patches: %w", err)
	}
	if fam.Workload == "" {
		return fmt.Errorf("patches: family %s: no workload", name)
	}
	if len(fam.Variants) == 0 {
		return fmt.Errorf("patches: family %s has no variants", name)
	}
	if err := fam.Kernels.Check(); fam.Kernels != "" && err != nil {
		return fmt.Errorf("patches: family %s: %w", name, err)
	}
	if _, ok := fam.Variants[fam.Baseline]; !ok {
		return fmt.Errorf("patches: family %s: baseline %q is not one of its variants (%s)", name, fam.Baseline, strings.Join(fam.VariantNames(), ", "))
	}
	for vname, v := range fam.Variants {
		if v == nil {
			v = &Variant{}
			fam.Variants[vname] = v
		}
		v.Name = vname
		if err := names.Check(names.Variant, vname); err != nil {
			return fmt.Errorf("patches: family %s: %w (it names directories and diff sets)", name, err)
		}
		v.Files = nil
		// The cap on a series holds for a variant's paths together too:
		// each path under it, five of them would all be read.
		// Summed from stat first, so that several large files are
		// refused before any of them is parsed.
		what := fmt.Sprintf("family %s variant %s (all its patches: %s)", name, vname, strings.Join(v.Patches, ", "))
		if size := statSize(v.Patches...); size > seriesCap {
			return &TooLargeError{Path: what, Limit: seriesCap}
		}
		var total int64
		for _, p := range v.Patches {
			ps, err := read(p)
			if err != nil {
				return fmt.Errorf("patches: family %s variant %s: %w", name, vname, err)
			}
			if total, err = addSize(total, what, ps); err != nil {
				return err
			}
			v.Files = append(v.Files, ps...)
		}
	}
	return nil
}

// Parse reads a patch of the embedded set: it must carry the header that
// says what it is, where it comes from and what it was rebased onto.
func Parse(name string, data []byte) (*Patch, error) {
	text := string(data)
	for _, field := range []string{"What:", "Source:", "Base:"} {
		if !strings.Contains(text, "\n"+field) && !strings.HasPrefix(text, field) {
			return nil, fmt.Errorf("patches: %s: header has no %q line (every patch says what it is, where it comes from and what it was rebased onto)", name, field)
		}
	}
	return ParseUser(name, data)
}

// ParseUser reads a user's patch: a plain unified diff or one `git
// format-patch` mail. It needs no header; mail headers, when present, give
// the subject, author, date and Message-Id.
func ParseUser(name string, data []byte) (*Patch, error) {
	sum := sha256.Sum256(data)
	p := &Patch{Name: name, Data: data, SHA256: hex.EncodeToString(sum[:])}
	text := string(data) // one copy, shared by the header and diff readers
	p.readMailHeaders(text)
	diffs, err := parseDiff(name, text)
	if err != nil {
		return nil, err
	}
	if len(diffs) == 0 {
		return nil, &NoDiffError{Name: name}
	}
	p.Diffs = diffs
	seen := map[string]bool{}
	for _, d := range diffs {
		if d.OldPath == "" && d.NewPath == "" {
			return nil, fmt.Errorf("patches: %s: a file diff names no file (/dev/null on both sides)", name)
		}
		for _, f := range []string{d.OldPath, d.NewPath} {
			if f != "" && !seen[f] {
				seen[f] = true
				p.Files = append(p.Files, f)
			}
		}
	}
	return p, p.CheckPaths()
}

// NoDiffError is a file (or mail) that holds no diff at all.
type NoDiffError struct{ Name string }

func (e *NoDiffError) Error() string {
	return fmt.Sprintf("patches: %s: no diff found (no \"--- a/FILE\" / \"+++ b/FILE\" pair or \"diff --git\" line)", e.Name)
}

// Family returns the named family or an error listing the known ones.
func (m *Manifest) Family(name string) (*Family, error) {
	f, ok := m.Families[name]
	if !ok {
		return nil, fmt.Errorf("unknown family %q (known: %s)", name, strings.Join(m.FamilyNames(), ", "))
	}
	return f, nil
}

// FamilyNames lists families, sorted.
func (m *Manifest) FamilyNames() []string {
	var names []string
	for n := range m.Families {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// VariantNames lists variants, baseline first, then sorted.
func (f *Family) VariantNames() []string {
	var names []string
	for n := range f.Variants {
		if n != f.Baseline {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if _, ok := f.Variants[f.Baseline]; ok {
		names = append([]string{f.Baseline}, names...)
	}
	return names
}

// Variant returns the named variant or an error listing the known ones.
func (f *Family) Variant(name string) (*Variant, error) {
	v, ok := f.Variants[name]
	if !ok {
		return nil, fmt.Errorf("family %s: unknown variant %q (known: %s)", f.Name, name, strings.Join(f.VariantNames(), ", "))
	}
	return v, nil
}

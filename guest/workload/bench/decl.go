// Package bench is the benchmark workload: a program of the user's (or a
// Debian package's) run in the guest a number of times, its output read
// by a declared parser (Go benchmark format, JSON or YAML by path, named
// regular-expression groups) into declared metrics, then run again under
// the irqsoff tracer for the irqs-off figures every workload reports. An
// experiment declares it under workload.benchmark (Decl); the host checks
// the declaration and packs the program into the image
// (images/bundle), and sends it to kagent as the workload's -spec
// parameter, which kagent checks with the same code.
package bench

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/guest/agentproto"
	"github.com/kregress/kregress/guest/metrics"
	"github.com/kregress/kregress/internal/imagepaths"
	"github.com/kregress/kregress/internal/names"
)

// The output formats a declaration may read.
const (
	FormatGoBench = "gobench" // golang.org/x/perf/benchfmt: "BenchmarkX-8  100  123 ns/op"
	FormatJSON    = "json"    // a JSON document, values found by path
	FormatYAML    = "yaml"    // a YAML document (stress-ng --yaml), values found by path
	FormatRegexp  = "regexp"  // named groups of a regular expression
)

// Formats lists the output formats, for messages.
var Formats = []string{FormatGoBench, FormatJSON, FormatYAML, FormatRegexp}

// Bounds of a declaration: each is far above what a benchmark needs, and
// the declaration travels on kagent's command line.
const (
	MaxRuns    = 1000
	MaxWarmup  = 100
	MaxArgs    = 256
	MaxArgLen  = 4096
	MaxMetrics = 64
	MaxCopies  = 64
	MaxTimeout = time.Hour
	MinTimeout = 100 * time.Millisecond
	MaxRegexp  = 4096
	// MaxRegexpProgram bounds output.regexp's compiled program, in
	// instructions: RE2's matching is linear in the output but also in
	// the program, which a few bytes can make huge ((a?){1000} is two
	// thousand instructions), so that a pattern within MaxRegexp took
	// minutes over MaxOutput. A pattern naming several metrics is a few
	// dozen instructions.
	MaxRegexpProgram = 256
	MaxFromLen       = 512
	MaxSpecSize      = 64 << 10 // the encoded declaration kagent accepts
)

// Decl is a benchmark as an experiment declares it (workload.benchmark).
type Decl struct {
	// Program is the program to run: on the host a path (relative to the
	// experiment file) or a name looked up on PATH, packed into the
	// image with the libraries and loader it needs; in the guest (the
	// declaration kagent gets, Guest) its path in the image.
	Program string   `yaml:"program" json:"program"`
	Args    []string `yaml:"args,omitempty" json:"args,omitempty"`
	// Runs are the measured runs per cell (the metric is their median),
	// after Warmup runs whose output is only checked.
	Runs   int `yaml:"runs" json:"runs"`
	Warmup int `yaml:"warmup" json:"warmup"`
	// Timeout bounds each run.
	Timeout string `yaml:"timeout" json:"timeout"`
	// Copy puts more host files or directories into the image.
	Copy []Copy `yaml:"copy,omitempty" json:"copy,omitempty"`
	// HostDryRun: the program is safe to run on the host once, as
	// declared, before anything builds, so that a parser matching
	// nothing is refused then, not after the first boot.
	HostDryRun bool `yaml:"host_dry_run,omitempty" json:"-"`
	// Output says how the program's output is read.
	Output Output `yaml:"output" json:"output"`
	// Metrics are what the output yields, in the report's order; the
	// first judged one is the primary metric unless the experiment
	// names primary_metrics.
	Metrics []Metric `yaml:"metrics" json:"metrics"`

	// lines are where the keys were in the experiment file (0: not
	// from a file), for refusals that name the line.
	lines map[string]int
}

// Copy is a host file or directory put into the image at Guest.
type Copy struct {
	Host  string `yaml:"host" json:"-"`
	Guest string `yaml:"guest" json:"guest"`
}

// Output is how a run's output is read.
type Output struct {
	Format string `yaml:"format" json:"format"`
	// Regexp (format regexp) has a named group per metric's From.
	Regexp string `yaml:"regexp,omitempty" json:"regexp,omitempty"`
	// Stream is what is read: stdout (default), stderr, or both
	// (stdout then stderr).
	Stream string `yaml:"stream,omitempty" json:"stream,omitempty"`
}

// Metric is one declared metric.
type Metric struct {
	Name string `yaml:"name" json:"name"`
	// From is where the value is: a regexp's group name, a JSON or YAML
	// path (jobs.0.read.iops, metrics.[stressor=fork].bogo-ops), or a Go
	// benchmark's name and unit ("BenchmarkX ns/op", the -N suffix left
	// off).
	From string `yaml:"from" json:"from"`
	// Unit and Better may be left out for a Go benchmark unit that
	// implies them (ns/op: lower, MB/s: higher).
	Unit   string `yaml:"unit,omitempty" json:"unit"`
	Better string `yaml:"better,omitempty" json:"better"`
	// Scale multiplies the value read (0: 1), e.g. 1e-3 for ns to us.
	Scale float64 `yaml:"scale,omitempty" json:"scale,omitempty"`

	line int
}

// UnmarshalYAML decodes a declaration strictly and keeps its keys' lines.
func (d *Decl) UnmarshalYAML(n *yaml.Node) error {
	type plain Decl
	var p plain
	// Decode alone would not refuse an unknown key here, whatever the
	// outer decoder was told: a misspelt key must not be dropped.
	if err := knownKeys(n, reflect.TypeOf(p)); err != nil {
		return err
	}
	if err := n.Decode(&p); err != nil {
		return err
	}
	*d = Decl(p)
	d.lines = map[string]int{"": n.Line}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			d.lines[k.Value] = k.Line
			if k.Value == "output" && v.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(v.Content); j += 2 {
					d.lines["output."+v.Content[j].Value] = v.Content[j].Line
				}
			}
			if k.Value == "metrics" && v.Kind == yaml.SequenceNode {
				for j, item := range v.Content {
					if j < len(d.Metrics) {
						d.Metrics[j].line = item.Line
					}
				}
			}
		}
	}
	return nil
}

// knownKeys refuses a key of mapping n that struct t has no yaml field
// for, in yaml.v3's own words (config reads them), recursively.
func knownKeys(n *yaml.Node, t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if err := knownKeys(item, t); err != nil {
				return err
			}
		}
		return nil
	case yaml.MappingNode:
	default:
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		found := false
		for j := 0; j < t.NumField(); j++ {
			name, _, _ := strings.Cut(t.Field(j).Tag.Get("yaml"), ",")
			if name == k.Value && name != "" && name != "-" {
				found = true
				if err := knownKeys(n.Content[i+1], t.Field(j).Type); err != nil {
					return err
				}
			}
		}
		if !found {
			return fmt.Errorf("line %d: field %s not found in type bench.%s", k.Line, k.Value, t.Name())
		}
	}
	return nil
}

// Line is the experiment file's line of key (a key of the declaration,
// "output.regexp"; "" for the block itself); 0 when unknown.
func (d *Decl) Line(key string) int {
	if l := d.lines[key]; l > 0 {
		return l
	}
	return d.lines[""]
}

// Error is a declaration that cannot work, naming the key and its line.
type Error struct {
	Key  string // workload.benchmark.KEY
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, key workload.benchmark.%s: %s", e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("key workload.benchmark.%s: %s", e.Key, e.Msg)
}

// Refuse is an *Error about key of d.
func (d *Decl) Refuse(key, format string, args ...any) *Error {
	base, _, _ := strings.Cut(key, "[")
	return &Error{Key: key, Line: d.Line(base), Msg: fmt.Sprintf(format, args...)}
}

// refuseMetric is an *Error about d's metric i.
func (d *Decl) refuseMetric(i int, format string, args ...any) *Error {
	line := d.Metrics[i].line
	if line == 0 {
		line = d.Line("metrics")
	}
	return &Error{Key: fmt.Sprintf("metrics[%d]", i), Line: line, Msg: fmt.Sprintf(format, args...)}
}

// TimeoutD is the per-run timeout (Check accepted it).
func (d *Decl) TimeoutD() time.Duration {
	t, _ := time.ParseDuration(d.Timeout)
	return t
}

// WithDefaults fills what a declaration may leave out: 5 runs, a 60s
// timeout, stdout.
func (d *Decl) WithDefaults() {
	if d.Runs == 0 {
		d.Runs = 5
	}
	if d.Timeout == "" {
		d.Timeout = "60s"
	}
	if d.Output.Stream == "" {
		d.Output.Stream = "stdout"
	}
}

// Check refuses a declaration that cannot work, without touching the
// host: bounds, a known format, a regexp that compiles with a group per
// metric, metrics with names, units and a better direction (or a Go
// benchmark unit implying them). WithDefaults first.
func (d *Decl) Check() error {
	switch {
	case d.Program == "":
		return d.Refuse("program", "must name the program to run (a path, or a name on PATH)")
	case strings.ContainsAny(d.Program, "\x00\n"):
		return d.Refuse("program", "%q is not a file name", d.Program)
	case len(d.Args) > MaxArgs:
		return d.Refuse("args", "%d arguments, at most %d", len(d.Args), MaxArgs)
	case d.Runs < 1 || d.Runs > MaxRuns:
		return d.Refuse("runs", "%d is out of range 1..%d", d.Runs, MaxRuns)
	case d.Warmup < 0 || d.Warmup > MaxWarmup:
		return d.Refuse("warmup", "%d is out of range 0..%d", d.Warmup, MaxWarmup)
	case len(d.Copy) > MaxCopies:
		return d.Refuse("copy", "%d entries, at most %d", len(d.Copy), MaxCopies)
	case len(d.Metrics) == 0:
		return d.Refuse("metrics", "declare at least one metric (name, from, unit, better)")
	case len(d.Metrics) > MaxMetrics:
		return d.Refuse("metrics", "%d metrics, at most %d", len(d.Metrics), MaxMetrics)
	}
	for i, a := range d.Args {
		if len(a) > MaxArgLen || strings.ContainsRune(a, 0) {
			return d.Refuse(fmt.Sprintf("args[%d]", i), "longer than %d bytes or holds a NUL", MaxArgLen)
		}
	}
	t, err := time.ParseDuration(d.Timeout)
	if err != nil || t < MinTimeout || t > MaxTimeout {
		return d.Refuse("timeout", "%q: want a duration in %s..%s (e.g. 30s)", d.Timeout, MinTimeout, MaxTimeout)
	}
	for i, c := range d.Copy {
		if imagepaths.Reserved(c.Guest) {
			return d.Refuse(fmt.Sprintf("copy[%d]", i), "guest %q: want an absolute path outside the image's own (%s), e.g. /opt/data", c.Guest, imagepaths.List)
		}
	}
	switch d.Output.Stream {
	case "stdout", "stderr", "both":
	default:
		return d.Refuse("output.stream", "%q: want stdout, stderr or both", d.Output.Stream)
	}
	var re *regexp.Regexp
	switch d.Output.Format {
	case FormatRegexp:
		if len(d.Output.Regexp) > MaxRegexp {
			return d.Refuse("output.regexp", "longer than %d bytes", MaxRegexp)
		}
		if re, err = compileRegexp(d.Output.Regexp); err != nil {
			return d.Refuse("output.regexp", "%v", err)
		}
		if d.Output.Regexp == "" || !slices.ContainsFunc(re.SubexpNames(), func(s string) bool { return s != "" }) {
			return d.Refuse("output.regexp", "needs named groups, (?P<name>...), one per metric's from")
		}
	case FormatGoBench, FormatJSON, FormatYAML:
		if d.Output.Regexp != "" {
			return d.Refuse("output.regexp", "is for format regexp, not %s", d.Output.Format)
		}
	default:
		return d.Refuse("output.format", "%q: want %s", d.Output.Format, strings.Join(Formats, ", "))
	}
	seen := map[string]bool{}
	for _, m := range metrics.IrqsoffSpecs() {
		seen[m.Name] = true
	}
	for i := range d.Metrics {
		m := &d.Metrics[i]
		if err := names.Check(names.Metric, m.Name); err != nil {
			return d.refuseMetric(i, "%v", err)
		}
		if seen[m.Name] {
			return d.refuseMetric(i, "%q is declared twice, or is one of the irqs-off metrics every workload reports", m.Name)
		}
		seen[m.Name] = true
		if m.From == "" || len(m.From) > MaxFromLen {
			return d.refuseMetric(i, "%s: from must say where the value is (1..%d bytes)", m.Name, MaxFromLen)
		}
		if m.Scale < 0 || m.Scale != m.Scale {
			return d.refuseMetric(i, "%s: scale %g must be positive", m.Name, m.Scale)
		}
		switch d.Output.Format {
		case FormatRegexp:
			if re.SubexpIndex(m.From) < 0 {
				return d.refuseMetric(i, "%s: from %q is no named group of output.regexp", m.Name, m.From)
			}
		case FormatGoBench:
			_, unit, ok := splitGoBench(m.From)
			if !ok {
				return d.refuseMetric(i, "%s: from %q: want a benchmark name and unit, e.g. \"BenchmarkEncode ns/op\"", m.Name, m.From)
			}
			if m.Unit == "" {
				m.Unit = unit
			}
			if m.Better == "" {
				m.Better = string(impliedDirection(unit))
			}
		case FormatJSON, FormatYAML:
			if _, err := parsePath(m.From); err != nil {
				return d.refuseMetric(i, "%s: from %q: %v", m.Name, m.From, err)
			}
		}
		if m.Unit == "" || len(m.Unit) > 32 || strings.ContainsAny(m.Unit, " \t\n") {
			return d.refuseMetric(i, "%s: unit must be declared (one word of at most 32 bytes: s, ms, ops/s, MB/s)", m.Name)
		}
		switch agentproto.Direction(m.Better) {
		case agentproto.HigherIsBetter, agentproto.LowerIsBetter, agentproto.Informational:
		case "":
			return d.refuseMetric(i, "%s: better must be declared: higher, lower or info (unit %s implies none)", m.Name, m.Unit)
		default:
			return d.refuseMetric(i, "%s: better %q: want higher, lower or info", m.Name, m.Better)
		}
	}
	return nil
}

// impliedDirection is the better direction a Go benchmark unit implies
// ("" when it implies none).
func impliedDirection(unit string) agentproto.Direction {
	switch {
	case unit == "ns/op" || unit == "sec/op" || unit == "B/op" || unit == "allocs/op" || strings.HasSuffix(unit, "-ns/op"):
		return agentproto.LowerIsBetter
	case unit == "MB/s" || unit == "B/s" || strings.HasSuffix(unit, "ops/s"):
		return agentproto.HigherIsBetter
	}
	return ""
}

// splitGoBench splits a Go benchmark metric's From, "BenchmarkX/sub ns/op".
func splitGoBench(from string) (name, unit string, ok bool) {
	f := strings.Fields(from)
	if len(f) != 2 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", "", false
	}
	return f[0], f[1], true
}

// Specs are the metrics a run of d reports (Check first): the declared
// ones, then the irqs-off figures every workload reports.
func (d *Decl) Specs() []metrics.Spec {
	var out []metrics.Spec
	for _, m := range d.Metrics {
		out = append(out, metrics.Define(m.Name, m.Unit, agentproto.Direction(m.Better), fmt.Sprintf("%s's %s (%s), median of %d runs", path.Base(d.Program), m.From, d.Output.Format, d.Runs)))
	}
	return append(out, metrics.IrqsoffSpecs()...)
}

// Primary is the metric judged first when the experiment names none: the
// first judged declared one.
func (d *Decl) Primary() []string {
	for _, m := range d.Metrics {
		if agentproto.Direction(m.Better) != agentproto.Informational {
			return []string{m.Name}
		}
	}
	return nil
}

// GuestDir is where the image holds a benchmark's program.
const GuestDir = "/opt/kregress/bench"

// GuestProgram is the path in the image of host program prog.
func GuestProgram(prog string) string {
	return GuestDir + "/" + path.Base(strings.ReplaceAll(prog, "\\", "/"))
}

// Guest is the declaration kagent gets: the program at its path in the
// image, without host-only fields.
func (d Decl) Guest() Decl {
	g := d
	g.Program = GuestProgram(d.Program)
	g.HostDryRun = false
	g.Copy = slices.Clone(d.Copy)
	for i := range g.Copy {
		g.Copy[i].Host = ""
	}
	return g
}

// Encode is the declaration as kagent's -spec parameter takes it.
func (d Decl) Encode() string {
	b, _ := json.Marshal(d)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Decode reads an encoded declaration (kagent's -spec), strictly and
// within MaxSpecSize, and checks it.
func Decode(s string) (*Decl, error) {
	if len(s) > MaxSpecSize {
		return nil, fmt.Errorf("benchmark spec: %d bytes, at most %d", len(s), MaxSpecSize)
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("benchmark spec: %w", err)
	}
	var d Decl
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("benchmark spec: %w", err)
	}
	if dec.More() {
		return nil, errors.New("benchmark spec: trailing data")
	}
	d.WithDefaults()
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("benchmark spec: %w", err)
	}
	return &d, nil
}

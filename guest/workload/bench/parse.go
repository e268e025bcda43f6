package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"gopkg.in/yaml.v3"

	"github.com/kregress/kregress/internal/doclimit"
	"github.com/kregress/kregress/internal/stats"
)

// MaxOutput bounds what is read of one run's output: a benchmark's
// report is kilobytes; a program that prints more is cut (and its tail
// is what an error shows).
const MaxOutput = 1 << 20

// maxDepth bounds the nesting of a JSON or YAML document a path walks.
const maxDepth = 64

// Parser reads declared metrics out of one run's output.
type Parser struct {
	d  *Decl
	re *regexp.Regexp
}

// NewParser is the parser of d (Check accepted it).
func NewParser(d *Decl) (*Parser, error) {
	p := &Parser{d: d}
	if d.Output.Format == FormatRegexp {
		re, err := compileRegexp(d.Output.Regexp)
		if err != nil {
			return nil, err
		}
		p.re = re
	}
	return p, nil
}

// Parse reads every declared metric from out: each must be found and be
// a finite number, or the run is an error (never a zero). A metric found
// several times (a regexp's every match, a Go benchmark's -count) is the
// median of its values.
func (p *Parser) Parse(out []byte) (map[string]float64, error) {
	if len(out) > MaxOutput {
		return nil, fmt.Errorf("output is %d bytes, more than %d", len(out), MaxOutput)
	}
	var found map[string][]float64
	var err error
	switch p.d.Output.Format {
	case FormatRegexp:
		found = p.regexpValues(out)
	case FormatGoBench:
		found, err = p.goBenchValues(out)
	case FormatJSON, FormatYAML:
		found, err = p.docValues(out)
	default:
		err = fmt.Errorf("unknown format %q", p.d.Output.Format)
	}
	if err != nil {
		return nil, err
	}
	res := map[string]float64{}
	for _, m := range p.d.Metrics {
		vs := found[m.Name]
		if len(vs) == 0 {
			return nil, fmt.Errorf("metric %s: %s %q not found in the output", m.Name, p.d.Output.Format, m.From)
		}
		v := stats.Median(vs)
		if m.Scale != 0 {
			v *= m.Scale
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("metric %s: %q is not a finite number", m.Name, m.From)
		}
		res[m.Name] = v
	}
	return res, nil
}

// compileRegexp compiles an output regexp whose program has at most
// MaxRegexpProgram instructions, measured (as regexp.Compile builds
// it) before the regexp is used on any output.
func compileRegexp(expr string) (*regexp.Regexp, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if n := len(prog.Inst); n > MaxRegexpProgram {
		return nil, fmt.Errorf("compiles to %d instructions, more than %d: matching time grows with them (a counted repetition such as {100} is written out that many times)", n, MaxRegexpProgram)
	}
	return regexp.Compile(expr)
}

func (p *Parser) regexpValues(out []byte) map[string][]float64 {
	found := map[string][]float64{}
	// At most this many matches: a pattern that matches every byte of a
	// megabyte would otherwise build a million slices.
	for _, sub := range p.re.FindAllSubmatch(out, 10000) {
		for _, m := range p.d.Metrics {
			i := p.re.SubexpIndex(m.From)
			if i < 0 || sub[i] == nil {
				continue
			}
			if v, err := strconv.ParseFloat(strings.TrimSpace(string(sub[i])), 64); err == nil {
				found[m.Name] = append(found[m.Name], v)
			}
		}
	}
	return found
}

func (p *Parser) goBenchValues(out []byte) (map[string][]float64, error) {
	found := map[string][]float64{}
	r := benchfmt.NewReader(bytes.NewReader(out), "output")
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error or unit metadata: other lines may hold the metrics
		}
		// benchfmt drops the "Benchmark" prefix of the name.
		name := "Benchmark" + trimProcs(string(res.Name.Full()))
		for _, m := range p.d.Metrics {
			want, unit, _ := splitGoBench(m.From)
			if name != want {
				continue
			}
			for _, v := range res.Values {
				switch {
				case v.OrigUnit == unit:
					found[m.Name] = append(found[m.Name], v.OrigValue)
				case v.Unit == unit:
					found[m.Name] = append(found[m.Name], v.Value)
				}
			}
		}
	}
	return found, r.Err()
}

// trimProcs drops a Go benchmark name's GOMAXPROCS suffix (-8).
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

func (p *Parser) docValues(out []byte) (map[string][]float64, error) {
	var doc any
	switch p.d.Output.Format {
	case FormatJSON:
		// A program may print lines before its document (fio's notes):
		// the document starts at the first '{' or '['.
		start := bytes.IndexAny(out, "{[")
		if start < 0 {
			return nil, errors.New("no JSON document in the output")
		}
		if err := doclimit.JSON(out[start:]); err != nil {
			return nil, fmt.Errorf("JSON: %w", err)
		}
		dec := json.NewDecoder(bytes.NewReader(out[start:]))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return nil, fmt.Errorf("JSON: %w", err)
		}
	case FormatYAML:
		// To nodes first (linear in the output), the keys counted, and
		// only then decoded: yaml.v3's duplicate check is quadratic
		// in a mapping's keys.
		var root yaml.Node
		if err := yaml.Unmarshal(out, &root); err != nil {
			return nil, fmt.Errorf("YAML: %w", err)
		}
		if err := doclimit.YAML(&root); err != nil {
			return nil, fmt.Errorf("YAML: %w", err)
		}
		if err := root.Decode(&doc); err != nil {
			return nil, fmt.Errorf("YAML: %w", err)
		}
	}
	found := map[string][]float64{}
	for _, m := range p.d.Metrics {
		steps, err := parsePath(m.From)
		if err != nil {
			return nil, err
		}
		if v, ok := walk(doc, steps, 0); ok {
			found[m.Name] = append(found[m.Name], v)
		}
	}
	return found, nil
}

// step is one element of a path: a key, an index, or a selector
// [key=value] picking the first element of a list whose key has value.
type step struct {
	key      string
	index    int // >= 0: an index
	selKey   string
	selValue string
}

// parsePath splits a path: dot-separated keys and indexes, [k=v]
// selectors, and [key] for a key with dots in it
// ("jobs.0.read.iops", "metrics.[stressor=fork].bogo-ops",
// "clat_ns.percentile.[99.000000]").
func parsePath(p string) ([]step, error) {
	if p == "" {
		return nil, errors.New("empty path")
	}
	var parts []string
	for rest := p; ; {
		var part string
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%q: [ without ]", rest)
			}
			part, rest = rest[:end+1], rest[end+1:]
			if rest != "" && rest[0] != '.' {
				return nil, fmt.Errorf("%q: want a dot after ]", part+rest)
			}
		} else if i := strings.IndexByte(rest, '.'); i >= 0 {
			part, rest = rest[:i], rest[i:]
		} else {
			part, rest = rest, ""
		}
		parts = append(parts, part)
		if len(parts) > maxDepth {
			return nil, fmt.Errorf("more than %d steps", maxDepth)
		}
		if rest == "" {
			break
		}
		rest = rest[1:] // the dot
		if rest == "" {
			return nil, errors.New("a dot at the end")
		}
	}
	var out []step
	for _, part := range parts {
		switch {
		case part == "":
			return nil, errors.New("empty step (two dots, or a dot at an end)")
		case strings.HasPrefix(part, "[") && strings.HasSuffix(part, "]"):
			inner := part[1 : len(part)-1]
			k, v, sel := strings.Cut(inner, "=")
			switch {
			case inner == "":
				return nil, fmt.Errorf("step %q: empty", part)
			case !sel:
				out = append(out, step{key: inner, index: -1})
			case k == "":
				return nil, fmt.Errorf("selector %q: want [key=value]", part)
			default:
				out = append(out, step{selKey: k, selValue: v, index: -1})
			}
		default:
			if n, err := strconv.Atoi(part); err == nil && n >= 0 {
				out = append(out, step{index: n})
			} else {
				out = append(out, step{key: part, index: -1})
			}
		}
	}
	return out, nil
}

// walk follows steps in a decoded document to a number.
func walk(v any, steps []step, depth int) (float64, bool) {
	if depth > maxDepth {
		return 0, false
	}
	if len(steps) == 0 {
		return number(v)
	}
	s := steps[0]
	switch {
	case s.selKey != "":
		list, ok := v.([]any)
		if !ok {
			return 0, false
		}
		for _, e := range list {
			if str, ok := scalar(field(e, s.selKey)); ok && str == s.selValue {
				return walk(e, steps[1:], depth+1)
			}
		}
		return 0, false
	case s.index >= 0:
		if list, ok := v.([]any); ok {
			if s.index < len(list) {
				return walk(list[s.index], steps[1:], depth+1)
			}
			return 0, false
		}
		// A map whose key is a number ("0"): the step is a key.
		return walk(field(v, strconv.Itoa(s.index)), steps[1:], depth+1)
	}
	f := field(v, s.key)
	if f == nil {
		return 0, false
	}
	return walk(f, steps[1:], depth+1)
}

// field is key of a decoded map (JSON's or YAML's), or nil.
func field(v any, key string) any {
	switch m := v.(type) {
	case map[string]any:
		return m[key]
	case map[any]any:
		return m[key]
	}
	return nil
}

// scalar is a decoded scalar as text.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(x), true
	}
	return "", false
}

// number is a decoded value as a number: a JSON or YAML number, or a
// string holding one (some programs quote their figures).
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// Tail is the last n bytes of out, from a line start when one is near:
// what an error shows of a run's output.
func Tail(out []byte, n int) string {
	if len(out) <= n {
		return string(out)
	}
	t := out[len(out)-n:]
	if i := bytes.IndexByte(t, '\n'); i >= 0 && i < len(t)-1 {
		t = t[i+1:]
	}
	return "..." + string(t)
}

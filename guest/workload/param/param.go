// Package param declares a workload's parameters once: name, kind,
// default, bounds and doc, as flags of a flag.FlagSet bound to the fields
// of the workload's Params. kagent parses its command line with them, the
// host validates an experiment's workload.params by parsing the command
// line it will send with the same declarations, and docs/workloads.md's
// table is checked against them (guest/workload's tests).
//
// Declaring a parameter does not set its field: Defaults does, so that a
// Params built in code can be bound and checked (Check) without losing its
// values. Parsing reads a number or duration without checking its bounds,
// and Check checks them, so a bound is refused in one wording whatever the
// value came from; a Choice is refused when parsed.
package param

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is a parameter's type.
type Kind uint8

// The kinds of parameter.
const (
	// Int is a whole number in decimal, within [Min, Max].
	Int Kind = iota + 1
	// Duration is a time.ParseDuration string within [Min, Max].
	Duration
	// Choice is one of a fixed list of words.
	Choice
)

// String names the kind as the docs and usage do.
func (k Kind) String() string {
	switch k {
	case Int:
		return "N"
	case Duration:
		return "D"
	case Choice:
		return "WORD"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Spec describes one parameter.
type Spec struct {
	Name string
	Kind Kind
	// Doc is one line of Markdown (words in backquotes); flag usage gets
	// it without the backquotes.
	Doc string
	// Default, Min and Max are as the parameter is written (Min and Max
	// empty for a Choice).
	Default, Min, Max string
	// Choices are a Choice's words.
	Choices []string
}

// Placeholder is how usage lines show the parameter's value.
func (s Spec) Placeholder() string {
	if s.Kind == Choice {
		return strings.Join(s.Choices, "|")
	}
	return s.Kind.String()
}

// value is what every parameter's flag.Value also is.
type value interface {
	flag.Value
	spec() Spec
	// check says why the bound field's current value is out of bounds.
	check() error
	setDefault()
	// parse says why a written value is refused, without storing it.
	parse(s string) error
}

// IntVar declares an integer parameter bound to p, with its default and
// bounds (inclusive).
func IntVar(fs *flag.FlagSet, p *int, name string, def, lo, hi int, doc string) {
	declare(fs, &bounded[int]{p: p, def: def, lo: lo, hi: hi, read: readInt, show: strconv.Itoa, s: Spec{Name: name, Kind: Int, Doc: doc,
		Default: strconv.Itoa(def), Min: strconv.Itoa(lo), Max: strconv.Itoa(hi)}})
}

// DurationVar declares a duration parameter bound to p, with its default
// and bounds (inclusive).
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, def, lo, hi time.Duration, doc string) {
	declare(fs, &bounded[time.Duration]{p: p, def: def, lo: lo, hi: hi, read: readDuration, show: time.Duration.String, s: Spec{Name: name, Kind: Duration, Doc: doc,
		Default: short(def), Min: short(lo), Max: short(hi)}})
}

// short writes d as time.Duration does without its zero minutes and
// seconds: 1h, not 1h0m0s.
func short(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ChoiceVar declares a parameter that is one of choices, bound to p. An
// empty field stands for the default (a Params built in code need not
// spell it).
func ChoiceVar(fs *flag.FlagSet, p *string, name, def string, choices []string, doc string) {
	declare(fs, &choiceValue{p: p, def: def, s: Spec{Name: name, Kind: Choice, Doc: doc,
		Default: def, Choices: slices.Clone(choices)}})
}

// declare adds v to fs. A default outside its own bounds is a bug in the
// declaration, caught by the first test that binds it.
func declare(fs *flag.FlagSet, v value) {
	s := v.spec()
	if err := v.parse(s.Default); err != nil {
		panic(fmt.Sprintf("param %s: default: %v", s.Name, err))
	}
	fs.Var(v, s.Name, strings.ReplaceAll(s.Doc, "`", ""))
	fs.Lookup(s.Name).DefValue = s.Default // Var took the unset field's
}

// Usage is the parameter's help line: name, placeholder, doc, default
// and bounds.
func (s Spec) Usage() string {
	bounds := s.Min + ".." + s.Max
	if s.Kind == Choice {
		bounds = strings.Join(s.Choices, ", ")
	}
	return fmt.Sprintf("-%s %s\t%s (default %s; %s)", s.Name, s.Placeholder(), strings.ReplaceAll(s.Doc, "`", ""), s.Default, bounds)
}

// Specs lists fs's parameters in name order; flags declared otherwise are
// not parameters and are left out.
func Specs(fs *flag.FlagSet) []Spec {
	var out []Spec
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(value); ok {
			out = append(out, v.spec())
		}
	})
	return out
}

// Defaults sets every parameter of fs to its default.
func Defaults(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(value); ok {
			v.setDefault()
		}
	})
}

// CheckDeclared checks the parameters declare puts on a fresh flag set (a
// workload's Params.Flags, bound to the Params being validated): the
// first step of every workload's Validate, its error prefixed by the
// workload's name.
func CheckDeclared(workload string, declare func(fs *flag.FlagSet)) error {
	fs := flag.NewFlagSet(workload, flag.ContinueOnError)
	declare(fs)
	if err := Check(fs); err != nil {
		return fmt.Errorf("%s: %w", workload, err)
	}
	return nil
}

// Check says which parameters' bound fields are out of bounds, as
// "name=value out of range lo..hi".
func Check(fs *flag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if v, ok := f.Value.(value); ok {
			if err := v.check(); err != nil {
				errs = append(errs, fmt.Errorf("%s=%s %w", f.Name, v, err))
			}
		}
	})
	return errors.Join(errs...)
}

// bounded is an Int or a Duration parameter: a value of T within
// [lo, hi], written as read parses it.
type bounded[T int | time.Duration] struct {
	p           *T
	def, lo, hi T
	read        func(string) (T, error)
	show        func(T) string
	s           Spec
}

// readInt takes decimal only: the host writes the value into a shell
// command line, and one spelling per number keeps stored parameters
// comparable.
func readInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("not a whole number")
	}
	return n, nil
}

func readDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("not a duration (e.g. 500ms, 2s)")
	}
	return d, nil
}

func (v *bounded[T]) spec() Spec  { return v.s }
func (v *bounded[T]) setDefault() { *v.p = v.def }

func (v *bounded[T]) String() string {
	if v == nil || v.p == nil { // flag.PrintDefaults' zero value
		return ""
	}
	return v.show(*v.p)
}

// Set reads a value without checking its bounds: Check does, so that an
// out-of-range value is refused as the workload's Validate words it
// ("readers=0 out of range 1..4096") whether it came from a command line
// or from code.
func (v *bounded[T]) Set(s string) error {
	x, err := v.read(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

func (v *bounded[T]) parse(s string) error {
	x, err := v.read(s)
	if err != nil {
		return err
	}
	return v.in(x)
}

func (v *bounded[T]) check() error { return v.in(*v.p) }

func (v *bounded[T]) in(x T) error {
	if x < v.lo || x > v.hi {
		return fmt.Errorf("out of range %s..%s", v.s.Min, v.s.Max)
	}
	return nil
}

type choiceValue struct {
	p   *string
	def string
	s   Spec
}

func (v *choiceValue) spec() Spec  { return v.s }
func (v *choiceValue) setDefault() { *v.p = v.def }

func (v *choiceValue) String() string {
	if v == nil || v.p == nil {
		return ""
	}
	return *v.p
}

func (v *choiceValue) Set(s string) error {
	if err := v.parse(s); err != nil {
		return err
	}
	*v.p = s
	return nil
}

func (v *choiceValue) parse(s string) error { return v.in(s) }

func (v *choiceValue) check() error {
	if *v.p == "" {
		return nil
	}
	return v.in(*v.p)
}

func (v *choiceValue) in(s string) error {
	if !slices.Contains(v.s.Choices, s) {
		return fmt.Errorf("not one of %s", strings.Join(v.s.Choices, ", "))
	}
	return nil
}

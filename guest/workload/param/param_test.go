package param

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

type params struct {
	N    int
	D    time.Duration
	Mode string
}

func (p *params) flags(fs *flag.FlagSet) {
	IntVar(fs, &p.N, "n", 2, 1, 10, "how many `things`")
	DurationVar(fs, &p.D, "d", time.Second, 100*time.Millisecond, time.Hour, "how long")
	ChoiceVar(fs, &p.Mode, "mode", "a", []string{"a", "b"}, "which")
}

func newSet(p *params) *flag.FlagSet {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	p.flags(fs)
	return fs
}

// Declaring leaves the fields alone (a Params built in code keeps its
// values to be checked); Defaults sets them.
func TestDeclareThenDefaults(t *testing.T) {
	p := params{N: 7}
	fs := newSet(&p)
	if p.N != 7 || p.D != 0 || p.Mode != "" {
		t.Fatalf("declaring changed the fields: %+v", p)
	}
	Defaults(fs)
	if p != (params{N: 2, D: time.Second, Mode: "a"}) {
		t.Fatalf("defaults %+v", p)
	}
	if f := fs.Lookup("d"); f.DefValue != "1s" || f.Usage != "how long" {
		t.Fatalf("flag d: default %q usage %q", f.DefValue, f.Usage)
	}
	if f := fs.Lookup("n"); f.Usage != "how many things" {
		t.Fatalf("flag usage keeps the doc's backquotes: %q", f.Usage)
	}
}

// Parsing then checking refuses what is malformed or out of bounds.
func TestParseBounds(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "" accepted, else part of the error
	}{
		{[]string{"-n", "1", "-d", "100ms", "-mode", "b"}, ""},
		{[]string{"-n", "10", "-d", "1h"}, ""},
		{[]string{"-n", "0"}, "out of range 1..10"},
		{[]string{"-n", "11"}, "out of range 1..10"},
		{[]string{"-n", "0x5"}, "not a whole number"},
		{[]string{"-n", "4 5"}, "not a whole number"},
		{[]string{"-d", "99ms"}, "out of range 100ms..1h"},
		{[]string{"-d", "1h0m0.001s"}, "out of range"},
		{[]string{"-d", "5"}, "not a duration"},
		{[]string{"-mode", "c"}, "not one of a, b"},
		{[]string{"-mode", ""}, "not one of a, b"},
	} {
		var p params
		fs := newSet(&p)
		Defaults(fs)
		err := fs.Parse(c.args)
		if err == nil {
			err = Check(fs)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want one saying %q", c.args, err, c.want)
		}
	}
}

func TestCheckNamesEveryFieldOutOfBounds(t *testing.T) {
	p := params{N: 2, D: time.Second}
	if err := Check(newSet(&p)); err != nil {
		t.Fatalf("in bounds (empty choice: the default): %v", err)
	}
	p = params{N: 0, D: time.Minute, Mode: "z"}
	err := Check(newSet(&p))
	if err == nil {
		t.Fatal("out of bounds accepted")
	}
	for _, want := range []string{"n=0 out of range 1..10", "mode=z not one of a, b"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "d=") {
		t.Errorf("%v names d, which is in bounds", err)
	}
}

func TestSpecs(t *testing.T) {
	var p params
	fs := newSet(&p)
	fs.Bool("other", false, "not a parameter")
	got := Specs(fs)
	if len(got) != 3 || got[0].Name != "d" || got[1].Name != "mode" || got[2].Name != "n" {
		t.Fatalf("specs %+v", got)
	}
	if d := got[0]; d.Kind != Duration || d.Default != "1s" || d.Min != "100ms" || d.Max != "1h" || d.Placeholder() != "D" {
		t.Errorf("d: %+v", d)
	}
	if m := got[1]; m.Kind != Choice || m.Placeholder() != "a|b" || m.Usage() != "-mode a|b\twhich (default a; a, b)" {
		t.Errorf("mode: %+v, usage %q", m, m.Usage())
	}
	if n := got[2]; n.Usage() != "-n N\thow many things (default 2; 1..10)" {
		t.Errorf("n usage %q", n.Usage())
	}
}

func TestDefaultOutOfBoundsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a default outside its bounds was declared")
		}
	}()
	var n int
	IntVar(flag.NewFlagSet("t", flag.ContinueOnError), &n, "n", 0, 1, 2, "")
}

package verdict

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestHelpComplete: Help's table lists every Exit constant of this
// package, so a new exit code cannot go undocumented.
func TestHelpComplete(t *testing.T) {
	af, err := parser.ParseFile(token.NewFileSet(), "verdict.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]string{}
	ast.Inspect(af, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Values) != len(vs.Names) {
			return true
		}
		for i, name := range vs.Names {
			lit, ok := vs.Values[i].(*ast.BasicLit)
			if !strings.HasPrefix(name.Name, "Exit") || !ok || lit.Kind != token.INT {
				continue
			}
			v, _ := strconv.Atoi(lit.Value)
			codes[v] = name.Name
		}
		return true
	})
	if len(codes) < 12 {
		t.Fatalf("found only %d exit codes: %v", len(codes), codes)
	}
	for v, name := range codes {
		if !strings.Contains(Help, "\n  "+strconv.Itoa(v)+" ") {
			t.Errorf("exit code %d (%s) is not in Help", v, name)
		}
	}
}

// answer is one constant of a question's type: its stored word and the
// exit code docs/verdict.md's table gives it (-1: a Change, which ends no
// process).
type answer struct {
	word string
	exit int
}

// answers are every verdict constant of this package, by its name.
func answers() map[string]struct {
	got  fmt.Stringer
	exit func() Exit
	want answer
} {
	type row = struct {
		got  fmt.Stringer
		exit func() Exit
		want answer
	}
	change := func(c Change, word string) row { return row{c, nil, answer{word, -1}} }
	return map[string]row{
		"Regression":  change(Regression, "regression"),
		"Improvement": change(Improvement, "improvement"),
		"NoChange":    change(NoChange, "~"),
		"Info":        change(Info, "info"),
		"Unmeasured":  change(Unmeasured, "unmeasured"),
		"Unjudged":    change(Unjudged, "unjudged"),

		"ComparisonPass":       {ComparisonPass, ComparisonPass.Exit, answer{"pass", 0}},
		"ComparisonRegression": {ComparisonRegression, ComparisonRegression.Exit, answer{"regression", 3}},
		"ComparisonUnmeasured": {ComparisonUnmeasured, ComparisonUnmeasured.Exit, answer{"unmeasured", 1}},
		"ComparisonUnjudged":   {ComparisonUnjudged, ComparisonUnjudged.Exit, answer{"unjudged", 9}},
		"BaselineFailed":       {BaselineFailed, BaselineFailed.Exit, answer{"baseline failed", 4}},

		"NightPass":       {NightPass, NightPass.Exit, answer{"pass", 0}},
		"FirstNight":      {FirstNight, FirstNight.Exit, answer{"first night", 0}},
		"NightUnjudged":   {NightUnjudged, NightUnjudged.Exit, answer{"unjudged", 9}},
		"NightRegression": {NightRegression, NightRegression.Exit, answer{"regression", 3}},
		"KernelFailure":   {KernelFailure, KernelFailure.Exit, answer{"kernel failure", 5}},
		"InfraFailure":    {InfraFailure, InfraFailure.Exit, answer{"infrastructure failure", 1}},

		"Culprit":       {Culprit, Culprit.Exit, answer{"culprit", 0}},
		"NotReproduced": {NotReproduced, NotReproduced.Exit, answer{"does not reproduce", 7}},
		"Inconclusive":  {Inconclusive, Inconclusive.Exit, answer{"inconclusive", 8}},
		"Stopped":       {Stopped, Stopped.Exit, answer{"stopped", 1}},

		"Good":      {Good, Good.Exit, answer{"good", 0}},
		"Bad":       {Bad, Bad.Exit, answer{"bad", 1}},
		"Skip":      {Skip, Skip.Exit, answer{"skip", 125}},
		"Undecided": {Undecided, Undecided.Exit, answer{"undecided", 125}},
	}
}

// verdictConstants are the names of the constants verdict.go declares of
// a question's type.
func verdictConstants(t *testing.T) []string {
	t.Helper()
	af, err := parser.ParseFile(token.NewFileSet(), "verdict.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range af.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			typ, ok := vs.Type.(*ast.Ident)
			if !ok {
				continue
			}
			switch typ.Name {
			case "Change", "Comparison", "Night", "Bisect", "Step":
				for _, n := range vs.Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// docExitCodes are the codes of docs/verdict.md's "Exit codes" table.
func docExitCodes(t *testing.T) map[int]bool {
	t.Helper()
	b, err := os.ReadFile("../../docs/verdict.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n## Exit codes\n")
	if !ok {
		t.Fatal(`docs/verdict.md has no "## Exit codes" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	codes := map[int]bool{}
	for _, line := range strings.Split(table, "\n") {
		cell, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		if n, err := strconv.Atoi(cell); ok && err == nil {
			codes[n] = true
		}
	}
	if len(codes) < 12 {
		t.Fatalf("docs/verdict.md's exit code table: only %d codes: %v", len(codes), codes)
	}
	return codes
}

// TestAnswers: every verdict constant of every question is in the table
// above, prints its stored word, and exits with the code the table gives
// it, a code docs/verdict.md's exit code table documents.
func TestAnswers(t *testing.T) {
	all := answers()
	declared := verdictConstants(t)
	if len(declared) != len(all) {
		t.Errorf("verdict.go declares %d verdict constants %v, the test knows %d", len(declared), declared, len(all))
	}
	documented := docExitCodes(t)
	for _, name := range declared {
		a, ok := all[name]
		if !ok {
			t.Errorf("%s: not in the test's table of words and exit codes", name)
			continue
		}
		if got := a.got.String(); got != a.want.word {
			t.Errorf("%s prints %q, want %q", name, got, a.want.word)
		}
		if a.exit == nil {
			continue
		}
		got := int(a.exit())
		if got != a.want.exit {
			t.Errorf("%s exits %d, want %d", name, got, a.want.exit)
		}
		if !documented[got] {
			t.Errorf("%s exits %d, which docs/verdict.md's exit codes do not document", name, got)
		}
	}
}

func TestWorse(t *testing.T) {
	order := []Night{NightPass, FirstNight, NightUnjudged, NightRegression, KernelFailure, InfraFailure}
	for i, a := range order {
		for j, b := range order {
			want := order[max(i, j)]
			if got := Worse(a, b); got != want {
				t.Errorf("Worse(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}

// A night stores and heads with its Word, and reads it back; another
// word is refused, an empty one (no verdict reached) is the zero Night.
func TestNightWord(t *testing.T) {
	want := map[Night]string{
		NightPass: "pass", FirstNight: "first night (baseline set)", NightUnjudged: "UNJUDGED",
		NightRegression: "REGRESSION", KernelFailure: "KERNEL FAILURE", InfraFailure: "INFRASTRUCTURE FAILURE",
	}
	for n, word := range want {
		b, err := json.Marshal(struct {
			V Night `json:"verdict"`
		}{n})
		if err != nil || string(b) != `{"verdict":"`+word+`"}` {
			t.Errorf("%s stores as %s (%v), want %q", n, b, err, word)
		}
		var back struct {
			V Night `json:"verdict"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.V != n {
			t.Errorf("%s reads back as %q (%v)", b, back.V, err)
		}
	}
	var n Night
	for _, w := range []string{"regression", "ERROR", "Pass"} {
		if err := n.UnmarshalText([]byte(w)); err == nil {
			t.Errorf("%q read as the night %q", w, n)
		}
	}
	n = InfraFailure
	if err := n.UnmarshalText(nil); err != nil || n != "" {
		t.Errorf("an empty word read as %q (%v), want the zero Night", n, err)
	}
}

// A metric's row never prints the word of the whole comparison's
// UNJUDGED; every other change prints its stored word.
func TestRowWord(t *testing.T) {
	if got := Unjudged.Row(); got != TooFew || strings.Contains(strings.ToLower(got), "unjudged") {
		t.Fatalf("Unjudged.Row() = %q, want %q", got, TooFew)
	}
	for _, v := range []Change{Regression, Improvement, NoChange, Info, Unmeasured} {
		if v.Row() != string(v) {
			t.Errorf("%s.Row() = %q", v, v.Row())
		}
	}
}

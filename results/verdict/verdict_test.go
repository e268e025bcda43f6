package verdict

import (
	"go/ast"
	"go/parser"
	"go/token"
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

// The documented exit code of every verdict.
func TestExit(t *testing.T) {
	want := map[Verdict]Exit{
		Regression: 3, Improvement: 0, NoChange: 0, Info: 0, Unmeasured: 1,
		Pass: 0, FirstNight: 0, Unjudged: 9, KernelFailure: 5, InfraFailure: 1, BaselineFailed: 4,
		Culprit: 0, NotReproduced: 7, Inconclusive: 8, Stopped: 1,
		Good: 0, Bad: 1, Skip: 125, Undecided: 125,
	}
	for v, code := range want {
		if got := v.Exit(); got != code {
			t.Errorf("%q exits %d, want %d", v, got, code)
		}
	}
}

func TestWorse(t *testing.T) {
	order := []Verdict{Pass, FirstNight, Unjudged, Regression, KernelFailure, InfraFailure}
	for i, a := range order {
		for j, b := range order {
			want := order[max(i, j)]
			if got := Worse(a, b); got != want {
				t.Errorf("Worse(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}

// A metric's row never prints the word of the whole comparison's
// UNJUDGED; every other verdict prints its stored word.
func TestRowWord(t *testing.T) {
	if got := Unjudged.Row(); got != TooFew || strings.Contains(strings.ToLower(got), "unjudged") {
		t.Fatalf("Unjudged.Row() = %q, want %q", got, TooFew)
	}
	for _, v := range []Verdict{Regression, Improvement, NoChange, Info, Unmeasured} {
		if v.Row() != string(v) {
			t.Errorf("%s.Row() = %q", v, v.Row())
		}
	}
}

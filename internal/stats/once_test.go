package stats

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kregress/kregress/internal/testfile"
)

// homes are the packages (directories from the module root) where each
// shared helper is defined; a function of the same name anywhere else
// in the module's code is a second definition to fold into the first.
var homes = map[string]string{
	"median":      "internal/stats",
	"uppermedian": "internal/stats",
	"quantile":    "internal/stats",
	"nearestrank": "internal/stats",
	"logchoose":   "internal/stats",
	"lchoose":     "internal/stats",
	"firstline":   "internal/lines",
	"repstext":    "orchestrator/bisect (RepsString)",
	"repsstring":  "orchestrator/bisect",
}

// TestHelpersDefinedOnce: no non-test Go file outside a helper's home
// declares a function, or binds a function literal to a name, spelled
// as the helper is (case aside), nor writes two of them inline: a
// slice's middle element (x[len(x)/2], x[(len(x)-1)/2]), which Median or
// UpperMedian computes, or a text's first line (strings.SplitN(s, "\n",
// 2)[0], strings.Split(s, "\n")[0], or strings.Cut(s, "\n") with the
// rest dropped), which lines.First is.
func TestHelpersDefinedOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	testfile.ModuleGoFiles(t, root, parser.SkipObjectResolution, func(rel string, fset *token.FileSet, f *ast.File) {
		dir := filepath.ToSlash(filepath.Dir(rel))
		check := func(name string, pos token.Pos) {
			key := strings.ToLower(name)
			home, ok := homes[key]
			if !ok || dir == home {
				return
			}
			t.Errorf("%s: %s is defined again; use the one in %s", fset.Position(pos), name, home)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil {
					check(n.Name.Name, n.Pos())
				}
			case *ast.IndexExpr:
				if dir != homes["median"] && middleOf(n) {
					t.Errorf("%s: %s is a median written inline; use stats.Median or stats.UpperMedian", fset.Position(n.Pos()), types.ExprString(n))
				}
				if call, ok := n.X.(*ast.CallExpr); ok && dir != homes["firstline"] && splitsLines(call) && types.ExprString(n.Index) == "0" {
					t.Errorf("%s: %s is a first line written inline; use lines.First", fset.Position(n.Pos()), types.ExprString(n))
				}
			case *ast.AssignStmt:
				if len(n.Rhs) == 1 && len(n.Lhs) == 3 && dir != homes["firstline"] {
					if call, ok := n.Rhs[0].(*ast.CallExpr); ok && isCall(call, "strings", "Cut") && newlineArg(call) && types.ExprString(n.Lhs[1]) == "_" {
						t.Errorf("%s: strings.Cut at a newline, the rest dropped, is a first line written inline; use lines.First", fset.Position(n.Pos()))
					}
				}
				for i, rhs := range n.Rhs {
					if _, ok := rhs.(*ast.FuncLit); ok && i < len(n.Lhs) {
						if id, ok := n.Lhs[i].(*ast.Ident); ok {
							check(id.Name, id.Pos())
						}
					}
				}
			}
			return true
		})
	})
}

// middleOf says ix picks the middle element of the slice it indexes:
// x[len(x)/2] or x[(len(x)-1)/2].
func middleOf(ix *ast.IndexExpr) bool {
	half, ok := ix.Index.(*ast.BinaryExpr)
	if !ok || half.Op != token.QUO {
		return false
	}
	if two, ok := half.Y.(*ast.BasicLit); !ok || two.Value != "2" {
		return false
	}
	n := half.X
	if p, ok := n.(*ast.ParenExpr); ok {
		sub, ok := p.X.(*ast.BinaryExpr)
		if !ok || sub.Op != token.SUB {
			return false
		}
		if one, ok := sub.Y.(*ast.BasicLit); !ok || one.Value != "1" {
			return false
		}
		n = sub.X
	}
	call, ok := n.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "len" {
		return false
	}
	return types.ExprString(call.Args[0]) == types.ExprString(ix.X)
}

// isCall says call is pkg.name(...).
func isCall(call *ast.CallExpr, pkg, name string) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// newlineArg says call's second argument is the string "\n".
func newlineArg(call *ast.CallExpr) bool {
	if len(call.Args) < 2 {
		return false
	}
	lit, ok := call.Args[1].(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `"\n"`)
}

// splitsLines says call is strings.Split(s, "\n") or strings.SplitN(s,
// "\n", 2): a slice whose element 0 is s's first line.
func splitsLines(call *ast.CallExpr) bool {
	switch {
	case isCall(call, "strings", "Split"):
		return newlineArg(call)
	case isCall(call, "strings", "SplitN"):
		return newlineArg(call) && len(call.Args) == 3 && types.ExprString(call.Args[2]) == "2"
	}
	return false
}

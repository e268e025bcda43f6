package stats

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// homes are the packages (directories from the module root) where each
// shared helper is defined; a function of the same name anywhere else
// in the module's code is a second definition to fold into the first.
var homes = map[string]string{
	"median":      "internal/stats",
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
// as the helper is (case aside).
func TestHelpersDefinedOnce(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
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
			case *ast.AssignStmt:
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no Go files found under the module root")
	}
}

package testfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// ModuleGoFiles parses every non-test .go file below root (hidden
// directories, testdata and vendor skipped) with mode and calls fn with
// its slash-separated path relative to root and the file set it was
// parsed into. The tests that hold a rule over the module's own code
// (one definition per helper, comments that define) walk it this way. It
// fails the test on any error, and when fewer than 100 files were read:
// root is then not the module.
func ModuleGoFiles(t testing.TB, root string, mode parser.Mode, fn func(rel string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
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
		f, err := parser.ParseFile(fset, path, nil, mode)
		if err != nil {
			return err
		}
		files++
		fn(rel, fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the module", files, root)
	}
}

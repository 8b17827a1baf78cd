package loop

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the house limit (STYLE.md): a function a reader holds at once.
const maxFuncLines = 60

// TestFunctionsStayShort parses every non-test file of the runner and the core and fails on
// any function or method longer than maxFuncLines, counted from its signature to its closing
// brace (comments above it not included).
func TestFunctionsStayShort(t *testing.T) {
	n := 0
	for _, dir := range []string{".", "core"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				n++
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if lines > maxFuncLines {
					t.Errorf("%s: %s is %d lines (limit %d): split it", fset.Position(fn.Pos()), fn.Name.Name, lines, maxFuncLines)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("found only %d functions: the files moved?", n)
	}
}

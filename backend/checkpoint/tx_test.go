package checkpoint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every write of this package goes through the store's transaction helper (store.DB.Tx: one
// writer, busy handling, rollback on error); the plain handle (Recorder.sql, store.DB.SQL) is
// for reads only. The test reads the package's source: a call that writes (Exec, Begin,
// Prepare) on the plain handle, or passes the plain handle to a helper that is not a reader,
// fails it.
func TestWritesGoThroughTheStoresTransactions(t *testing.T) {
	// eachRow takes only a QueryContext: it cannot write.
	readers := map[string]bool{"queryChanges": true, "loadCache": true, "getBlob": true, "eachRow": true}
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			checked++
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && plainHandle(sel.X) {
				switch sel.Sel.Name {
				case "QueryContext", "QueryRowContext":
				default:
					t.Errorf("%s: %s on the plain database handle; write through db.Tx", fset.Position(call.Pos()), sel.Sel.Name)
				}
			}
			for _, a := range call.Args {
				if plainHandle(a) && !readers[funcName(call.Fun)] {
					t.Errorf("%s: the plain database handle passed to %s; write through db.Tx", fset.Position(call.Pos()), funcName(call.Fun))
				}
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("only %d calls inspected: the test is not reading the package", checked)
	}
}

// plainHandle: r.sql, or anything.SQL().
func plainHandle(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "sql"
	case *ast.CallExpr:
		sel, ok := x.Fun.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "SQL"
	}
	return false
}

func funcName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

package provider

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sdkClients are the SDK client types that must never be stored (a field, a variable, a
// new or & of one): Client's comment says what one stored value adds to the window's binary
// and its idle memory (about 30 MB).
var sdkClients = map[string]bool{
	"github.com/openai/openai-go/v3.Client":            true,
	"github.com/anthropics/anthropic-sdk-go/v2.Client": true,
}

// No Go file of the module stores an SDK client; the window's binary keeps only the SDK code
// Loopdesk calls. Only a value local to a function, whose address does not escape (send's),
// is allowed.
func TestSDKClientsAreNotStored(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "frontend" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, pos := range storedClients(f) {
			t.Errorf("%s stores an SDK client (keep its Options instead; see provider.Client)", fset.Position(pos))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The check itself finds each way of storing one.
	src := `package p
import (
	"github.com/openai/openai-go/v3"
	ant "github.com/anthropics/anthropic-sdk-go/v2"
)
type a struct{ c openai.Client }
type b struct{ c *ant.Client }
var v openai.Client
func f() { _ = new(openai.Client); _ = &ant.Client{}; ok := openai.Client{}; _ = ok }
`
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := storedClients(f); len(got) != 5 {
		t.Errorf("found %d stored clients in the sample, want 5", len(got))
	}
}

// storedClients lists where f names an SDK client type outside a composite literal: a
// field, a variable or parameter type, new(T) or &T{}.
func storedClients(f *ast.File) []token.Pos {
	names := map[string]string{} // local import name -> path
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := filepath.Base(path)
		if strings.HasPrefix(name, "v") && strings.Contains(path, "/") { // .../openai-go/v3
			name = filepath.Base(filepath.Dir(path))
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, "-go"), "-sdk")
		if im.Name != nil {
			name = im.Name.Name
		}
		names[name] = path
	}
	isClient := func(e ast.Expr) bool {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := sel.X.(*ast.Ident)
		return ok && sdkClients[names[x.Name]+"."+sel.Sel.Name]
	}
	var out []token.Pos
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if isClient(n.Type) {
				return false // a value; where it lives is what the cases below catch
			}
		case *ast.UnaryExpr:
			if lit, ok := n.X.(*ast.CompositeLit); ok && n.Op == token.AND && isClient(lit.Type) {
				out = append(out, n.Pos())
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 && isClient(n.Args[0]) {
				out = append(out, n.Pos())
			}
		case *ast.Field:
			if isClient(n.Type) || isClient(star(n.Type)) {
				out = append(out, n.Pos())
			}
		case *ast.ValueSpec:
			if n.Type != nil && (isClient(n.Type) || isClient(star(n.Type))) {
				out = append(out, n.Pos())
			}
		}
		return true
	})
	return out
}

func star(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return nil
}

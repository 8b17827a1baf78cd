package loop

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The runner drives the core and decides nothing (doc.go): a rule of a run is an input, a
// state field and an effect of the core, with a golden transcript. These checks keep three
// kinds of decision out of the runner's files: comparing or computing budgets, choosing an
// approval mode, and writing rows anywhere but the one persist executor.

// limitFields are the budget fields of core.Limits: only the core compares them or does
// arithmetic on them (core/bounds.go).
var limitFields = []string{"MaxTurns", "MaxToolCalls", "MaxTokens", "MaxCostUSD", "Timeout", "ContextWindow", "CompactAt", "SoftAt", "KeepTurns"}

// storeWrites are the Store methods that append rows or end a run: no runner file calls them,
// every row of a run takes the one path of its journal (backend/journal, the persist executor).
var storeWrites = []string{"Append", "StartRunWith", "AppendAndFinish", "FinishRun"}

// decisions lists what file's functions decide that the core should.
func decisions(fset *token.FileSet, file *ast.File) []string {
	var out []string
	report := func(n ast.Node, fn, what string) {
		out = append(out, fset.Position(n.Pos()).String()+": "+fn+" "+what)
	}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		name := fn.Name.Name
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BinaryExpr:
				if isLimit(n.X) || isLimit(n.Y) {
					report(n, name, "compares or computes a budget: the core decides budgets (core/bounds.go)")
				}
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					if isLimit(l) {
						report(n, name, "changes a budget: the core decides budgets (core/bounds.go)")
					}
					if isModeTarget(l) || (slices.ContainsFunc(n.Rhs, namesMode) && len(n.Lhs) == len(n.Rhs)) {
						report(n, name, "assigns an approval mode: the core chooses the mode a call is asked under")
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Mode" && namesMode(n.Value) {
					report(n, name, "sets an approval mode: the core chooses the mode a call is asked under")
				}
			case *ast.CallExpr:
				if s, ok := n.Fun.(*ast.SelectorExpr); ok && slices.Contains(storeWrites, s.Sel.Name) && strings.Contains(exprText(s.X), "Store") {
					report(n, name, "writes rows outside the persist executor (backend/journal): hand them to the core or to the run's journal")
				}
			}
			return true
		})
	}
	return out
}

func isLimit(e ast.Expr) bool {
	s, ok := ast.Unparen(e).(*ast.SelectorExpr)
	return ok && slices.Contains(limitFields, s.Sel.Name)
}

// isModeTarget: an assignment to a Mode field or a variable named mode.
func isModeTarget(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return e.Sel.Name == "Mode"
	case *ast.Ident:
		return e.Name == "mode"
	}
	return false
}

// namesMode: the expression names one of the approver's modes (tools.ModeAsk, ...).
func namesMode(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := s.X.(*ast.Ident); ok && x.Name == "tools" && strings.HasPrefix(s.Sel.Name, "Mode") && s.Sel.Name != "Mode" {
				found = true
			}
		}
		return !found
	})
	return found
}

func exprText(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.SelectorExpr:
		return exprText(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// TestRunnerDecidesNothing fails on a runner file (not a test, not the core) that compares or
// computes budgets, assigns an approval mode, or writes rows outside the persist executor.
func TestRunnerDecidesNothing(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		n++
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range decisions(fset, file) {
			t.Error(d)
		}
	}
	if n < 10 {
		t.Fatalf("found only %d runner files: the files moved?", n)
	}
}

// The checks catch what they are for: a runner that cut a child's budget, lowered a call's
// mode or appended a row from a worker would fail TestRunnerDecidesNothing.
func TestRunnerDecisionsAreCaught(t *testing.T) {
	src := `package loop
func (rn *run) childLimits(n int) Limits {
	l := rn.spec.Limits
	if l.MaxTurns > 0 { l.MaxTurns = (l.MaxTurns - rn.state.Turns) / n }
	return l
}
func (rn *run) ask(c Call) {
	mode := rn.spec.Mode
	if c.Name == "task" { mode = tools.ModeReadOnly }
	_ = tools.Request{Mode: tools.ModeReadOnly}
	_ = mode
}
func (rn *run) worker(ctx context.Context) {
	rn.r.cfg.Store.Append(ctx, rn.spec.SessionID, rn.id)
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "bad.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(decisions(fset, file), "\n")
	for _, want := range []string{"childLimits compares or computes a budget", "childLimits changes a budget",
		"ask assigns an approval mode", "ask sets an approval mode", "worker writes rows outside the persist executor"} {
		if !strings.Contains(got, want) {
			t.Errorf("not caught: %s\nreported:\n%s", want, got)
		}
	}
}

// The runner drives; what it grows by is decisions and use cases that belong elsewhere (the
// core, backend/chat, the store). These bounds only go down: the non-test code of this
// package, and the fields of run, the state one running run carries.
const (
	maxRunnerLines = 1900
	maxRunFields   = 15
)

// TestRunnerStaysSmall fails when the runner's non-test code reaches maxRunnerLines lines or
// the struct run reaches maxRunFields fields.
func TestRunnerStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lines, fields := 0, -1
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(src, []byte("\n"))
		if n := structFields(t, f, src, "run"); n >= 0 {
			fields = n
		}
	}
	t.Logf("the runner's non-test code: %d lines; struct run: %d fields", lines, fields)
	if lines >= maxRunnerLines {
		t.Errorf("the runner's non-test code is %d lines, at or over %d: move what is not driving the core where it belongs (doc.go)", lines, maxRunnerLines)
	}
	if fields < 0 {
		t.Fatal("struct run not found: it moved?")
	}
	if fields >= maxRunFields {
		t.Errorf("struct run has %d fields, at or over %d: group what belongs together, or move it out of the run", fields, maxRunFields)
	}
}

// structFields counts the fields of struct name declared in file src, -1 when it is not there.
func structFields(t *testing.T, name string, src []byte, typ string) int {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := -1
	ast.Inspect(file, func(node ast.Node) bool {
		ts, ok := node.(*ast.TypeSpec)
		if !ok || ts.Name.Name != typ {
			return true
		}
		if st, ok := ts.Type.(*ast.StructType); ok {
			n = 0
			for _, f := range st.Fields.List {
				n += max(len(f.Names), 1) // an embedded field has no name
			}
		}
		return false
	})
	return n
}

// The bound on run's fields counts what a reader holds: named fields one each, a group
// declared together one per name, an embedded field one.
func TestRunFieldsAreCounted(t *testing.T) {
	src := []byte(`package loop
type run struct {
	r    *Runner
	a, b int
	sync.Mutex
	journal journal
}
type other struct{ x, y, z int }
`)
	if n := structFields(t, "bad.go", src, "run"); n != 5 {
		t.Errorf("counted %d fields of run, want 5", n)
	}
	if n := structFields(t, "bad.go", src, "gone"); n != -1 {
		t.Errorf("counted %d fields of a struct that is not there, want -1", n)
	}
}

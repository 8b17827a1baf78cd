package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// TestWireTypesAreCurrent fails when frontend/src/api/wire.ts is not what the generator
// writes from the Go types today: a Go field renamed, added or retyped without `make types`.
func TestWireTypesAreCurrent(t *testing.T) {
	root := moduleRoot()
	tmp := filepath.Join(t.TempDir(), "wire.ts")
	b, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, _ := os.ReadFile(tmp)
	committed, err := os.ReadFile(filepath.Join(root, Output))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatalf("%s is stale: run `make types` and commit it; first difference:\n%s", Output, firstDiff(committed, fresh))
	}
}

func firstDiff(old, new []byte) string {
	a, b := strings.Split(string(old), "\n"), strings.Split(string(new), "\n")
	for i := range max(len(a), len(b)) {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + "\n  committed: " + x + "\n  from Go:   " + y
		}
	}
	return ""
}

// TestOneTypePerName: two Go types that would reach the page under one name are refused,
// naming both packages (the page keeps one type per concept).
func TestOneTypePerName(t *testing.T) {
	type Session struct{ ID string }
	g := newGen(moduleRoot())
	g.add(reflect.TypeFor[store.Session]())
	g.add(reflect.TypeFor[Session]())
	if len(g.errs) != 1 || !strings.Contains(g.errs[0], "two Go types named Session") ||
		!strings.Contains(g.errs[0], "backend/store") || !strings.Contains(g.errs[0], "scripts/gentypes") {
		t.Fatalf("errors = %q", g.errs)
	}
}

// TestRowKindsAreEveryKind: the Row union is built from store.Kinds; a kind declared in Go
// but missing there (or without a payload) would leave the page unable to read such rows.
func TestRowKindsAreEveryKind(t *testing.T) {
	declared := readConsts(filepath.Join(moduleRoot(), "backend", "store"))["Kind"]
	var listed []string
	for _, k := range store.Kinds {
		listed = append(listed, string(k))
		if _, ok := store.NewPayload(k); !ok {
			t.Errorf("kind %s has no payload", k)
		}
	}
	if !slices.Equal(declared, listed) {
		t.Fatalf("store.Kinds = %v, the constants of store.Kind are %v", listed, declared)
	}
}

// TestEnumsAndOptionalFields: a named string type's constants become a union; omitempty
// fields are optional; nil slices and pointers arrive as null.
func TestEnumsAndOptionalFields(t *testing.T) {
	b, err := Generate(moduleRoot())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"export type RuleEffect = 'allow' | 'ask' | 'deny';",
		"export type Row = { [K in ChunkKind]: RowBase & { kind: K; payload: RowPayloads[K] } }[ChunkKind];",
		"  assistant: AssistantPayload;",
		"export interface Run extends Counters {",
		"  budgets: unknown;",
		"  ended_at?: string;",
		"  tool_calls: ToolCall[] | null;",
		"  | (EventBase & { type: typeof APPROVAL_REQUESTED } & ApprovalRequestedPayload)",
		"  pending: ApprovalRequestedPayload[] | null;",
	} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("wire.ts lacks %q", want)
		}
	}
}

// TestMembersAreWhatJSONWrites: for every struct the page receives, the members the
// generator declares are the keys encoding/json writes for a zero value: no key arrives that
// the page's type lacks, and every member not marked optional is present.
func TestMembersAreWhatJSONWrites(t *testing.T) {
	g := newGen(moduleRoot())
	g.renames, g.fieldEnums, g.enumUnions = renames, fieldEnums, enumUnions
	for _, r := range rootTypes() {
		g.add(r)
	}
	checked := 0
	for _, typ := range g.order {
		if typ.Kind() != reflect.Struct {
			continue
		}
		b, err := json.Marshal(reflect.New(typ).Elem().Interface())
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		declared := map[string]bool{}
		for _, f := range fields(typ) {
			declared[f.name] = true
			if _, ok := keys[f.name]; !ok && !f.optional {
				t.Errorf("%s.%s is declared required but a zero value leaves it out", typ, f.name)
			}
		}
		for k := range keys {
			if !declared[k] {
				t.Errorf("%s writes %q, which its page type does not declare", typ, k)
			}
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("checked %d structs; the roots reach fewer types than the page uses", checked)
	}
}

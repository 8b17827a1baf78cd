package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/store"
)

// TestWireTypesAreCurrent fails when frontend/src/api/wire.ts or a bound method's stub under
// frontend/wailsjs/go is not what the generator writes from the Go types today (a Go field or
// a bound method renamed, added or retyped without `make types`), or when a file there is not
// the generator's (Wails' own models.ts, a stub of a service no longer bound).
func TestWireTypesAreCurrent(t *testing.T) {
	root := moduleRoot()
	files, err := GenerateAll(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, fresh := range files {
		committed, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%v: run `make types` and commit it", err)
		}
		if !bytes.Equal(fresh, committed) {
			t.Errorf("%s is stale: run `make types` and commit it; first difference:\n%s", name, firstDiff(committed, fresh))
		}
	}
	err = filepath.WalkDir(filepath.Join(root, BindingsDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s is not generated from Go: `make types` removes it", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every bound method has its stub, calling the method Wails binds, typed with the page's
// types: a parameter as the page sends it, a result as encoding/json writes it (a nil slice
// or pointer as null), an error result as the promise's rejection.
func TestStubsCallEveryBoundMethodWithThePagesTypes(t *testing.T) {
	files, err := GenerateAll(moduleRoot())
	if err != nil {
		t.Fatal(err)
	}
	dts := string(files[BindingsDir+"/desktop/Chat.d.ts"])
	js := string(files[BindingsDir+"/desktop/Chat.js"])
	for _, want := range []string{
		"import type { ",
		"export function Decide(arg1: string, arg2: string, arg3: DecisionInput): Promise<void>;",
		"export function Palette(arg1: string): Promise<PaletteEntry[] | null>;",
		"export function Live(arg1: string): Promise<LiveView>;",
	} {
		if !strings.Contains(dts, want) {
			t.Errorf("Chat.d.ts lacks %q:\n%s", want, dts)
		}
	}
	if !strings.Contains(js, "return window['go']['desktop']['Chat']['Decide'](arg1, arg2, arg3);") {
		t.Errorf("Chat.js does not call the bound method:\n%s", js)
	}
	if strings.Contains(dts, "models") {
		t.Errorf("Chat.d.ts still names Wails' models:\n%s", dts)
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

package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

const module = "github.com/loopdesk/loopdesk"

// gen writes TypeScript for Go types by reflection, as encoding/json marshals them: one
// interface per struct (embedded structs flattened), one string union per named string type
// whose constants it finds in the Go source (enums), every type reachable from the roots.
// A second Go type with the same name is an error: the page has one type per concept.
type gen struct {
	root       string // the module's folder, to read constants from source
	named      map[reflect.Type]string
	byName     map[string]reflect.Type
	order      []reflect.Type // structs and enums in the order first reached
	enums      map[reflect.Type][]string
	consts     map[string]map[string][]string // package path -> type name -> values, source order
	special    map[reflect.Type]string        // types written as given (the Row union)
	renames    map[reflect.Type]string        // TypeScript names that differ from Go's
	enumUnions map[reflect.Type]reflect.Type  // an enum widened by another (store.RunStatus)
	fieldEnums map[string]fieldEnum           // "Type.field" -> the enum a plain string field holds
	errs       []string
}

func newGen(root string) *gen {
	return &gen{root: root, named: map[reflect.Type]string{}, byName: map[string]reflect.Type{},
		enums: map[reflect.Type][]string{}, consts: map[string]map[string][]string{}, special: map[reflect.Type]string{}}
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	rawType       = reflect.TypeFor[json.RawMessage]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
)

// add reaches t and everything its fields reach.
func (g *gen) add(t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		if t == rawType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return
		}
		if t.Kind() == reflect.Map {
			g.add(t.Key())
		}
		t = t.Elem()
	}
	if t == timeType || t.Name() == "" && t.Kind() != reflect.Struct {
		return
	}
	if _, ok := g.named[t]; ok || g.special[t] != "" {
		return
	}
	if t.Name() == "" { // an anonymous struct: written inline, its fields still reached
		for _, f := range fields(t) {
			g.add(f.typ)
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) {
			g.errs = append(g.errs, fmt.Sprintf("%s marshals itself: give it a written type", t))
		}
	case reflect.String:
		vals := g.constsOf(t)
		if len(vals) == 0 {
			return // a plain string with a name
		}
		g.enums[t] = vals
		if w, ok := g.enumUnions[t]; ok {
			defer g.add(w)
		}
	default:
		return
	}
	g.name(t)
	g.order = append(g.order, t)
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() { // embedded named structs are declared too (see embeds)
			if f := t.Field(i); f.Anonymous && f.Type.Kind() == reflect.Struct && f.Type.Name() != t.Name() {
				g.add(f.Type)
			}
		}
		for _, f := range fields(t) {
			g.add(f.typ)
		}
		for _, f := range fields(t) {
			if e, ok := g.fieldEnums[t.Name()+"."+f.name]; ok {
				g.add(e.typ)
			}
		}
	}
}

// name registers t's TypeScript name (its Go name), refusing a second type of that name.
func (g *gen) name(t reflect.Type) {
	n := t.Name()
	if r, ok := g.renames[t]; ok {
		n = r
	}
	if prev, ok := g.byName[n]; ok && prev != t {
		g.errs = append(g.errs, fmt.Sprintf("two Go types named %s (%s and %s): one type per concept, or rename one",
			n, prev.PkgPath(), t.PkgPath()))
	}
	g.byName[n] = t
	g.named[t] = n
}

// constsOf lists the constants declared with type t in its package, in source order.
func (g *gen) constsOf(t reflect.Type) []string {
	pkg := t.PkgPath()
	if !strings.HasPrefix(pkg, module+"/") {
		return nil
	}
	byType, ok := g.consts[pkg]
	if !ok {
		byType = readConsts(filepath.Join(g.root, strings.TrimPrefix(pkg, module+"/")))
		g.consts[pkg] = byType
	}
	return byType[t.Name()]
}

// readConsts parses a package's non-test files for string constants with an explicit type.
func readConsts(dir string) map[string][]string {
	out := map[string][]string{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	sort.Strings(files)
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(out[id.Name], s) {
							out[id.Name] = append(out[id.Name], s)
						}
					}
				}
			}
		}
	}
	return out
}

// fieldEnum is the enum a plain string field holds (and whether it may also be "").
type fieldEnum struct {
	typ     reflect.Type
	orEmpty bool
}

// field is one JSON member of a struct.
type field struct {
	name     string
	typ      reflect.Type
	optional bool // omitempty/omitzero: may be absent
}

// fields lists t's JSON members as encoding/json does: exported, "-" skipped, untagged
// embedded structs flattened (an outer field of the same name wins).
func fields(t reflect.Type) []field {
	var out []field
	seen := map[string]bool{}
	var later []reflect.Type
	walk := func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" && opts == "" {
				continue
			}
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					later = append(later, et)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if seen[name] {
				continue
			}
			seen[name] = true
			opt := strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,")
			out = append(out, field{name: name, typ: ft, optional: opt})
		}
	}
	walk(t)
	for len(later) > 0 { // embedded structs' members come after the outer ones, which win
		e := later[0]
		later = later[1:]
		walk(e)
	}
	return out
}

// ts writes the TypeScript for a use of t; nullable says nil marshals as null (not omitted).
func (g *gen) ts(t reflect.Type, nullable bool) string {
	if s := g.special[t]; s != "" {
		return s
	}
	orNull := func(s string) string {
		if nullable {
			return s + " | null"
		}
		return s
	}
	switch {
	case t == timeType:
		return "string"
	case t == rawType:
		return "unknown"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return orNull("string") // base64
	}
	if n, ok := g.named[t]; ok {
		return n
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return orNull(g.ts(t.Elem(), false))
	case reflect.Slice, reflect.Array:
		el := g.ts(t.Elem(), true)
		if strings.Contains(el, "|") || strings.Contains(el, "&") {
			el = "(" + el + ")"
		}
		if t.Kind() == reflect.Array {
			nullable = false
		}
		return orNull(el + "[]")
	case reflect.Map:
		return orNull("Record<string, " + g.ts(t.Elem(), true) + ">")
	case reflect.Struct:
		return g.inline(t)
	case reflect.Interface:
		return "unknown"
	}
	g.errs = append(g.errs, fmt.Sprintf("no TypeScript for %s", t))
	return "unknown"
}

// inline writes a struct's members on one line (anonymous structs inside a field).
func (g *gen) inline(t reflect.Type) string {
	var parts []string
	for _, f := range fields(t) {
		parts = append(parts, g.member(f))
	}
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

// block writes a struct's members one per line, for a declaration.
func (g *gen) block(t reflect.Type, fs []field) string {
	var b strings.Builder
	b.WriteString("{\n")
	for _, f := range fs {
		m := g.member(f)
		if e, ok := g.fieldEnums[t.Name()+"."+f.name]; ok {
			f.typ = e.typ
			if m = g.member(f); e.orEmpty {
				m += " | ''"
			}
		}
		b.WriteString("  " + m + ";\n")
	}
	b.WriteString("}")
	return b.String()
}

// embeds splits a struct into the named structs it embeds (written as "extends", so a shared
// part such as store.Counters stays one type) and its own members. It returns no embeds
// when an own member shadows an embedded one: the members are then flattened.
func (g *gen) embeds(t reflect.Type) ([]string, []field) {
	var ext []string
	inherited := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		et := f.Type
		if !f.Anonymous || f.Tag.Get("json") != "" || et.Kind() != reflect.Struct || et.Name() == "" {
			continue
		}
		if _, ok := g.named[et]; !ok {
			return nil, fields(t)
		}
		ext = append(ext, g.named[et])
		for _, ef := range fields(et) {
			inherited[ef.name] = true
		}
	}
	var own []field
	for _, f := range fields(t) {
		if !inherited[f.name] {
			own = append(own, f)
		}
	}
	if len(own)+len(inherited) != len(fields(t)) {
		return nil, fields(t) // shadowing: flatten
	}
	return ext, own
}

func (g *gen) member(f field) string {
	name := f.name
	if !isIdent(name) {
		name = strconv.Quote(name)
	}
	if f.optional {
		return name + "?: " + g.ts(f.typ, false)
	}
	return name + ": " + g.ts(f.typ, true)
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// decl writes the declaration of a named struct or enum.
func (g *gen) decl(t reflect.Type) string {
	n := g.named[t]
	if vals, ok := g.enums[t]; ok {
		u := union(vals)
		if w, ok := g.enumUnions[t]; ok {
			u += " | " + g.ts(w, false)
		}
		return fmt.Sprintf("/** Go: %s.%s */\nexport type %s = %s;\n", pkgName(t), t.Name(), n, u)
	}
	ext, own := g.embeds(t)
	head := n
	if len(ext) > 0 {
		head += " extends " + strings.Join(ext, ", ")
	}
	return fmt.Sprintf("/** Go: %s.%s */\nexport interface %s %s\n", pkgName(t), t.Name(), head, g.block(t, own))
}

func union(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q, " | ")
}

func pkgName(t reflect.Type) string {
	p := t.PkgPath()
	return p[strings.LastIndex(p, "/")+1:]
}

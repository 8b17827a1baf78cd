package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	ijs "github.com/invopop/jsonschema"
)

// Sentinel errors of NewRegistry.
var (
	ErrDuplicateTool = errors.New("duplicate tool name")
	ErrBadTool       = errors.New("invalid tool definition")
)

// Spec is a tool as announced to the model.
type Spec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	ReadOnly    bool
}

// Registry holds the tools offered in a run, each with its compiled schema. It is
// immutable after NewRegistry and safe for concurrent use.
type Registry struct {
	order  []string
	byName map[string]entry
}

type entry struct {
	tool   Tool
	schema *jsonschema.Resolved
}

// OpenAI-compatible servers accept function names of this shape.
var toolNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// NewRegistry merges built-in and custom tools. Names must be unique and schemas must
// compile; the order given is the order Specs returns.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]entry, len(tools))}
	for _, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("%w: nil tool", ErrBadTool)
		}
		name := t.Name()
		if !toolNameRE.MatchString(name) {
			return nil, fmt.Errorf("%w: name %q must match %s", ErrBadTool, name, toolNameRE)
		}
		if _, dup := r.byName[name]; dup {
			return nil, fmt.Errorf("%w: %s", ErrDuplicateTool, name)
		}
		sch, err := compileSchema(name, t.Schema())
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBadTool, name, err)
		}
		r.byName[name] = entry{tool: t, schema: sch}
		r.order = append(r.order, name)
	}
	return r, nil
}

// compileSchema checks a tool's JSON Schema (draft 2020-12, or draft-07 when it says so) and
// prepares it for validating arguments. A schema naming another draft, using a keyword value
// the drafts do not define ("type": "strin") or referring outside itself is refused: the
// registry never offers a tool whose arguments it cannot check.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Resolved, error) {
	var sch jsonschema.Schema
	if err := json.Unmarshal(raw, &sch); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	switch sch.Schema {
	case "", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema",
		"https://json-schema.org/draft-07/schema#", "https://json-schema.org/draft/2020-12/schema":
	default:
		return nil, fmt.Errorf("compile schema: $schema %q is neither draft-07 nor draft 2020-12", sch.Schema)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	if err := checkTypes(doc, ""); err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	rs, err := sch.Resolve(&jsonschema.ResolveOptions{BaseURI: "mem:///tools/" + name + ".json"})
	if err != nil {
		return nil, fmt.Errorf("compile schema: %s", strings.ReplaceAll(err.Error(), "mem:///tools/"+name+".json", ""))
	}
	return rs, nil
}

// jsonTypes are the values "type" may take.
var jsonTypes = map[string]bool{"null": true, "boolean": true, "object": true, "array": true, "number": true, "integer": true, "string": true}

// checkTypes refuses a "type" keyword, anywhere in a schema, that names no JSON type. Values
// that are data, not schemas (enum, const, default, examples), are not looked into, and under
// properties every key is a property name, whatever it is called.
func checkTypes(v any, at string) error {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			switch k {
			case "enum", "const", "default", "examples":
				continue
			case "type":
				if err := checkTypeValue(c, at); err != nil {
					return err
				}
				continue
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependentRequired", "dependencies":
				if m, ok := c.(map[string]any); ok {
					for name, sub := range m {
						if err := checkTypes(sub, at+"/"+k+"/"+name); err != nil {
							return err
						}
					}
					continue
				}
			}
			if err := checkTypes(c, at+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range v {
			if err := checkTypes(c, fmt.Sprintf("%s/%d", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkTypeValue(v any, at string) error {
	names, ok := v.([]any)
	if !ok {
		names = []any{v}
	}
	for _, n := range names {
		if s, ok := n.(string); !ok || !jsonTypes[s] {
			return fmt.Errorf("at %q: \"type\" %v is not a JSON type", at+"/type", n)
		}
	}
	return nil
}

// Specs lists the tools in registration order, for the request to the model.
func (r *Registry) Specs() []Spec {
	specs := make([]Spec, 0, len(r.order))
	for _, name := range r.order {
		t := r.byName[name].tool
		specs = append(specs, Spec{Name: name, Description: t.Description(), Parameters: t.Schema(), ReadOnly: t.ReadOnly()})
	}
	return specs
}

// Lookup finds a tool by name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.byName[name]
	return e.tool, ok
}

// Run validates call.Arguments against the tool's schema and executes it. It never
// panics: an unknown tool, invalid arguments or a panicking tool come back as a
// Result with IsError set and the content prefixed by an ErrorCode. out may be nil.
func (r *Registry) Run(ctx context.Context, ws *Workspace, call Call, out func(string)) (res Result) {
	e, ok := r.byName[call.Name]
	if !ok {
		return codeResult(CodeUnknownTool, "no tool named %q; available: %s", call.Name, strings.Join(r.order, ", "))
	}
	raw := strings.TrimSpace(call.Arguments)
	if raw == "" {
		raw = "{}" // some servers send nothing for a call without arguments
	}
	var inst any
	if err := json.Unmarshal([]byte(raw), &inst); err != nil {
		return codeResult(CodeInvalidArguments, "arguments are not valid JSON: %v", err)
	}
	if err := e.schema.Validate(inst); err != nil {
		return codeResult(CodeInvalidArguments, "%s", validationMessage(err))
	}
	if out == nil {
		out = func(string) {}
	}
	defer func() {
		if p := recover(); p != nil {
			res = codeResult(CodeExecution, "%s panicked: %v\n%s", call.Name, p, firstLines(string(debug.Stack()), 12))
		}
	}()
	return e.tool.Execute(ctx, ws, json.RawMessage(raw), out)
}

// validationMessage turns the validator's chain ("validating root: validating
// /properties/n: type: ...") into the innermost schema location and what failed there, which
// the model can act on: `at /properties/n: type: "one" has type "string", want "integer"`.
func validationMessage(err error) string {
	msg := err.Error()
	where := ""
	for strings.HasPrefix(msg, "validating ") {
		rest := msg[len("validating "):]
		i := strings.Index(rest, ": ")
		if i < 0 {
			break
		}
		if loc := rest[:i]; loc != "root" {
			where = loc
		}
		msg = rest[i+2:]
	}
	// The numeric keywords print numbers as fractions and with six decimals: "0/1 is less than
	// 1.000000" reads "0 is less than 1". Other messages quote the arguments' own strings, which
	// stay as they are.
	if numericMessage.MatchString(msg) {
		msg = wholeFraction.ReplaceAllString(msg, "$1")
		msg = zeroDecimals.ReplaceAllString(msg, "$1")
	}
	if where == "" {
		return msg
	}
	return "at " + where + ": " + msg
}

var (
	numericMessage = regexp.MustCompile(`^(minimum|maximum|exclusiveMinimum|exclusiveMaximum|multipleOf): `)
	wholeFraction  = regexp.MustCompile(`\b(-?\d+)/1\b`)
	zeroDecimals   = regexp.MustCompile(`\b(-?\d+)\.0+\b`)
)

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// schemaFor generates the JSON Schema of a tool's argument struct: fields without
// omitempty are required, unknown properties are refused, no $ref indirection (some
// servers do not resolve it). Each type's schema is generated once per process (by
// reflection, about 65 KB of garbage for the built-in tools) and copied out: every run
// lists the tools.
func schemaFor[T any]() json.RawMessage {
	t := reflect.TypeFor[T]()
	if b, ok := schemas.Load(t); ok {
		return slices.Clone(b.(json.RawMessage))
	}
	rf := ijs.Reflector{DoNotReference: true, ExpandedStruct: true}
	var zero T
	s := rf.Reflect(&zero)
	s.Version = ""
	s.ID = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tools: schema for %T: %v", zero, err)) // programming error, caught by tests
	}
	schemas.Store(t, json.RawMessage(b))
	return slices.Clone(b)
}

// schemas holds each argument type's schema (reflect.Type -> json.RawMessage).
var schemas sync.Map

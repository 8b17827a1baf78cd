package tools

import (
	"bytes"
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

	ijs "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
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
	schema *jsonschema.Schema
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

func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	url := "mem:///tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("add schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compile schema: %w", err)
	}
	return sch, nil
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
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
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

// validationMessage drops the validator's first line (which names the internal
// schema URL) and keeps the "at '/x': ..." lines the model can act on.
func validationMessage(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	lines := strings.Split(ve.Error(), "\n")
	var kept []string
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if l == "" || strings.HasPrefix(l, "jsonschema validation failed") {
			continue
		}
		kept = append(kept, l)
	}
	if len(kept) == 0 {
		return ve.Error()
	}
	return strings.Join(kept, "; ")
}

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

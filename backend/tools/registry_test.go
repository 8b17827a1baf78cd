package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestBuiltinSpecsAreStableAndDescribeRequiredArguments(t *testing.T) {
	r := builtinRegistry(t)
	var names []string
	for _, s := range r.Specs() {
		names = append(names, s.Name)
		var sch struct {
			Type                 string         `json:"type"`
			Properties           map[string]any `json:"properties"`
			Required             []string       `json:"required"`
			AdditionalProperties *bool          `json:"additionalProperties"`
			Schema               string         `json:"$schema"`
		}
		if err := json.Unmarshal(s.Parameters, &sch); err != nil {
			t.Fatalf("%s: parameters are not JSON: %v", s.Name, err)
		}
		if sch.Type != "object" || sch.AdditionalProperties == nil || *sch.AdditionalProperties || sch.Schema != "" {
			t.Errorf("%s: want a closed object schema without $schema, got %s", s.Name, s.Parameters)
		}
		if s.Description == "" {
			t.Errorf("%s: no description", s.Name)
		}
	}
	want := "read_file list_dir find_files search_text write_file edit_file run_shell_command"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("specs order = %q, want %q", got, want)
	}
	ro := map[string]bool{}
	for _, s := range r.Specs() {
		ro[s.Name] = s.ReadOnly
	}
	if !ro["read_file"] || !ro["search_text"] || ro["write_file"] || ro["run_shell_command"] {
		t.Fatalf("read-only flags wrong: %v", ro)
	}
	var rf struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(r.Specs()[0].Parameters, &rf)
	if strings.Join(rf.Required, ",") != "path" {
		t.Fatalf("read_file required = %v, want [path]", rf.Required)
	}
}

func TestNewRegistryRefusesDuplicatesAndBadTools(t *testing.T) {
	_, err := NewRegistry(append(Builtins(), builtin[readFileArgs]{name: "read_file", run: runReadFile})...)
	if !errors.Is(err, ErrDuplicateTool) {
		t.Fatalf("duplicate: err = %v, want ErrDuplicateTool", err)
	}
	_, err = NewRegistry(fakeTool{name: "bad name!"})
	if !errors.Is(err, ErrBadTool) {
		t.Fatalf("bad name: err = %v", err)
	}
	_, err = NewRegistry(fakeTool{name: "x", schema: `{"type": 12}`})
	if !errors.Is(err, ErrBadTool) {
		t.Fatalf("bad schema: err = %v", err)
	}
}

// fakeTool is a hand-written tool whose behaviour the test chooses.
type fakeTool struct {
	name   string
	schema string
	exec   func(args json.RawMessage) Result
}

func (f fakeTool) Name() string        { return f.name }
func (f fakeTool) Description() string { return "fake" }
func (f fakeTool) ReadOnly() bool      { return true }
func (f fakeTool) Schema() json.RawMessage {
	if f.schema == "" {
		return json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)
	}
	return json.RawMessage(f.schema)
}
func (f fakeTool) Execute(_ context.Context, _ *Workspace, args json.RawMessage, _ func(string)) Result {
	return f.exec(args)
}

func TestRunRefusesBadCallsBeforeExecuting(t *testing.T) {
	ran := 0
	custom := fakeTool{name: "count", exec: func(json.RawMessage) Result { ran++; return Result{Content: "ok"} }}
	r, err := NewRegistry(append(Builtins(), custom)...)
	if err != nil {
		t.Fatal(err)
	}
	ws := newWS(t)
	cases := []struct {
		name, tool, args, prefix, mention string
	}{
		{"unknown tool", "rm_rf", `{}`, "unknown_tool: ", "rm_rf"},
		{"not JSON", "count", `{"n": 1`, "invalid_tool_arguments: ", "not valid JSON"},
		{"missing required", "count", `{}`, "invalid_tool_arguments: ", `missing properties: ["n"]`},
		{"wrong type", "count", `{"n": "one"}`, "invalid_tool_arguments: ", "/n"},
		{"extra property", "count", `{"n": 1, "m": 2}`, "invalid_tool_arguments: ", `additional properties ["m"]`},
		{"array instead of object", "count", `[1]`, "invalid_tool_arguments: ", "object"},
		{"builtin missing path", "read_file", `{"offset": 3}`, "invalid_tool_arguments: ", "path"},
		{"builtin bad minimum", "read_file", `{"path": "a", "limit": 0}`, "invalid_tool_arguments: ", "limit"},
		{"shell timeout too long", "run_shell_command", `{"command": "true", "timeout_seconds": 99999}`, "invalid_tool_arguments: ", "timeout_seconds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.Run(context.Background(), ws, Call{ID: "1", Name: c.tool, Arguments: c.args}, nil)
			if !res.IsError || !strings.HasPrefix(res.Content, c.prefix) || !strings.Contains(res.Content, c.mention) {
				t.Fatalf("got %+v, want error starting %q mentioning %q", res, c.prefix, c.mention)
			}
			if strings.Contains(res.Content, "mem:///") {
				t.Fatalf("message leaks the internal schema URL: %s", res.Content)
			}
		})
	}
	if ran != 0 {
		t.Fatalf("tool executed %d times on invalid calls", ran)
	}
	res := r.Run(context.Background(), ws, Call{ID: "2", Name: "count", Arguments: `{"n": 1}`}, nil)
	if res.IsError || ran != 1 {
		t.Fatalf("valid call: %+v ran=%d", res, ran)
	}
}

func TestRunTurnsAPanicIntoAnErrorResult(t *testing.T) {
	boom := fakeTool{name: "boom", exec: func(json.RawMessage) Result {
		var mp map[string]int
		mp["x"] = 1 // nil map write
		return Result{}
	}}
	r, err := NewRegistry(boom)
	if err != nil {
		t.Fatal(err)
	}
	res := r.Run(context.Background(), nil, Call{Name: "boom", Arguments: `{"n":1}`}, nil)
	if !res.IsError || !strings.HasPrefix(res.Content, "tool_execution_exception: boom panicked: assignment to entry in nil map") {
		t.Fatalf("got %+v", res)
	}
}

func TestRunTreatsEmptyArgumentsAsEmptyObject(t *testing.T) {
	ws := newWS(t)
	writeFile(t, ws.Root()+"/a.txt", "x")
	res := builtinRegistry(t).Run(context.Background(), ws, Call{Name: "list_dir", Arguments: ""}, nil)
	if res.IsError || !strings.Contains(res.Content, "a.txt") {
		t.Fatalf("got %+v", res)
	}
}

func TestToolsWithoutAWorkspaceFailClearly(t *testing.T) {
	r := builtinRegistry(t)
	for _, c := range []Call{
		{Name: "read_file", Arguments: `{"path":"a"}`},
		{Name: "run_shell_command", Arguments: `{"command":"true"}`},
	} {
		res := r.Run(context.Background(), nil, c, nil)
		if !res.IsError || !strings.Contains(res.Content, "no workspace") {
			t.Errorf("%s: %+v", c.Name, res)
		}
	}
}

// The schemas servers send: the registry takes what drafts 07 and 2020-12 define, refuses what
// it could not check arguments against, and validates by the schema's own draft.
func TestSchemasAreCheckedAsTheirDraftDefines(t *testing.T) {
	cases := []struct {
		name, schema string
		ok           bool
	}{
		{"draft-07 with definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/p"}}}`, true},
		{"2020-12 with $defs", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"p":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`, true},
		{"a property called type", `{"type":"object","properties":{"type":{"type":"string","enum":["a","b"]}}}`, true},
		{"type in an enum's data", `{"type":"object","properties":{"o":{"enum":[{"type":"anything"}]}}}`, true},
		{"a list of types", `{"type":"object","properties":{"a":{"type":["string","null"]}}}`, true},
		{"a dependency on a property called type", `{"type":"object","dependencies":{"type":["a"]},"dependentRequired":{"type":["b"]}}`, true},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, false},
		{"no such type", `{"type":"object","properties":{"a":{"type":"strin"}}}`, false},
		{"no such type in a list", `{"type":"object","properties":{"a":{"type":["string","nul"]}}}`, false},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/remote.json"}}}`, false},
		{"keyword of the wrong kind", `{"type":"object","required":"a"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewRegistry(fakeTool{name: "x", schema: c.schema})
			if (err == nil) != c.ok {
				t.Fatalf("NewRegistry(%s): err = %v, want ok=%v", c.schema, err, c.ok)
			}
			if err != nil && (!errors.Is(err, ErrBadTool) || strings.Contains(err.Error(), "mem:///")) {
				t.Fatalf("err = %v, want ErrBadTool without the internal schema URL", err)
			}
		})
	}

	ran := 0
	r, err := NewRegistry(fakeTool{
		name:   "x",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"p":{"type":"string","minLength":2}},"properties":{"a":{"$ref":"#/definitions/p"},"n":{"type":"integer","minimum":1},"s":{"type":"string","pattern":"^x"}},"required":["a"]}`,
		exec:   func(json.RawMessage) Result { ran++; return Result{Content: "ok"} },
	})
	if err != nil {
		t.Fatal(err)
	}
	ws := newWS(t)
	for _, c := range []struct{ args, mention string }{
		{`{"a":"x"}`, "minLength"},
		{`{"a":"xy","n":0}`, "minimum: 0 is less than 1"},
		{`{"a":"xy","n":1.5}`, "integer"},
		{`{"a":3}`, "string"},
		// The argument's own string is quoted as sent, numbers in it included.
		{`{"a":"xy","s":"v10/1 at 2.00"}`, `"v10/1 at 2.00"`},
	} {
		res := r.Run(context.Background(), ws, Call{ID: "1", Name: "x", Arguments: c.args}, nil)
		if !res.IsError || !strings.HasPrefix(res.Content, "invalid_tool_arguments: at /") || !strings.Contains(res.Content, c.mention) {
			t.Errorf("%s: got %q, want an invalid_tool_arguments error at a location, mentioning %q", c.args, res.Content, c.mention)
		}
	}
	if res := r.Run(context.Background(), ws, Call{ID: "2", Name: "x", Arguments: `{"a":"xy","n":2}`}, nil); res.IsError || ran != 1 {
		t.Fatalf("valid call: %+v, ran %d times", res, ran)
	}
}

// Command gentypes writes frontend/src/api/wire.ts, the page's types, from the Go types that
// cross the bridge: every parameter and result of the window's bound methods, every loop
// event payload, every row payload, the Wails channels' payloads, the error codes and the
// channel names; and the bound methods' stubs under frontend/wailsjs/go, typed with those
// types. `make types` runs it; TestWireTypesAreCurrent fails when a committed file differs
// from what it writes, so the page's types cannot drift from Go.
//
//	go run -tags desktop,production,webkit2_41,sqlite_fts5 ./scripts/gentypes
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/loopdesk/loopdesk/backend/agents"
	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/sandbox"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Output is the generated file, relative to the module's folder.
const Output = "frontend/src/api/wire.ts"

func main() {
	flag.Parse()
	root := moduleRoot()
	files, err := GenerateAll(root)
	if err == nil {
		err = write(root, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentypes:", err)
		os.Exit(1)
	}
}

// write puts files (relative to root) in place and removes any other file under
// BindingsDir (a stub of a service no longer bound, Wails' models.ts).
func write(root string, files map[string][]byte) error {
	err := filepath.WalkDir(filepath.Join(root, BindingsDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for name, b := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// moduleRoot is the folder of this source file's module (two levels up).
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// services are the bound Wails services (app.go binds these).
var services = []any{&desktop.Sessions{}, &desktop.Chat{}, &desktop.Settings{}, &desktop.Workspace{}, &desktop.Window{},
	&desktop.Lifecycle{}, &desktop.Reports{}, &desktop.Storage{}}

// channels names each Wails channel for TypeScript, with the payload Go emits on it (nil: the
// loop events, typed as LoopEvent).
var channels = []struct {
	ts, name string
	payload  any
}{
	{"LOOP_EVENT", desktop.EventLoop, nil},
	{"WORKSPACE_CHANGED", desktop.EventWorkspaceChanged, desktop.WorkspaceChanged{}},
	{"WORKSPACE_WARNING", desktop.EventWorkspaceWarning, desktop.WorkspaceWarning{}},
	{"MCP_STATUS", desktop.EventMCPStatus, mcp.Status{}},
	{"APP_OPEN_FOLDER", desktop.EventOpenFolder, desktop.OpenFolder{}},
	{"APP_FOCUS_CARD", desktop.EventFocusCard, desktop.FocusCard{}},
	{"INBOX_CHANGED", desktop.EventInboxChanged, inbox.View{}},
	{"ACTIVITY_CHANGED", desktop.EventActivityChanged, desktop.Activity{}},
	{"APP_CLOSE_REQUESTED", desktop.EventCloseRequested, desktop.CloseRequest{}},
}

// renames are TypeScript names that differ from the Go name.
var renames = map[reflect.Type]string{
	reflect.TypeFor[store.Kind]():        "ChunkKind",
	reflect.TypeFor[core.StopReason]():   "StopReason",
	reflect.TypeFor[desktop.ErrorCode](): "ErrorCode",
	// A restore's plan, not the model's plan (store.Plan).
	reflect.TypeFor[checkpoint.Plan](): "RestorePlan",
	// The usage event (one model call and the run's totals), not the usage row.
	reflect.TypeFor[core.UsagePayload](): "UsageEventPayload",
	// What the watcher saw happen to a path, not a row's recorded change (checkpoint.Change).
	reflect.TypeFor[tools.Change]():   "PathChange",
	reflect.TypeFor[tools.ChangeOp](): "ChangeOp",
	// Names too general for the page's one namespace.
	reflect.TypeFor[mcp.Status]():            "McpStatus",
	reflect.TypeFor[mcp.State]():             "McpState",
	reflect.TypeFor[mcp.Config]():            "McpConfig",
	reflect.TypeFor[mcp.ServerConfig]():      "McpServerConfig",
	reflect.TypeFor[mcp.NameMapping]():       "McpName",
	reflect.TypeFor[desktop.MCPView]():       "McpView",
	reflect.TypeFor[config.Kind]():           "ProviderKind",
	reflect.TypeFor[agents.Definition]():     "AgentDefinition",
	reflect.TypeFor[desktop.SavedSettings](): "Settings",
	reflect.TypeFor[store.Effect]():          "RuleEffect",
	reflect.TypeFor[store.Scope]():           "RuleScope",
	reflect.TypeFor[tools.Mode]():            "ApprovalMode",
	reflect.TypeFor[sandbox.Mode]():          "SandboxMode",
	reflect.TypeFor[config.KeySource]():      "KeySource",
	reflect.TypeFor[hooks.Source]():          "HookSource",
	reflect.TypeFor[instructions.Scope]():    "InstructionScope",
	// The inbox's types, whose Go names only make sense inside their package.
	reflect.TypeFor[inbox.View]():        "InboxView",
	reflect.TypeFor[inbox.Item]():        "InboxItem",
	reflect.TypeFor[inbox.Approval]():    "InboxApproval",
	reflect.TypeFor[inbox.Ended]():       "InboxEnded",
	reflect.TypeFor[inbox.Answer]():      "InboxAnswer",
	reflect.TypeFor[inbox.Process]():     "InboxProcess",
	reflect.TypeFor[inbox.RulePreview](): "InboxRulePreview",
}

// enumUnions widen an enum by another: a value of the first may be any of the second too.
var enumUnions = map[reflect.Type]reflect.Type{
	// A run's status is the store's own (running, interrupted) or the loop's stop reason.
	reflect.TypeFor[store.RunStatus](): reflect.TypeFor[core.StopReason](),
}

// fieldEnums gives a string field the values of a Go enum type where the field itself is
// declared as a plain string ("Type.json_name" -> the enum), so the page still gets a union;
// orEmpty when the field may also be "".
var fieldEnums = map[string]fieldEnum{
	"SavedSettings.approval_mode": {reflect.TypeFor[tools.Mode](), false},
	"SettingsInput.approval_mode": {reflect.TypeFor[tools.Mode](), false},
	"SessionMode.approve":         {reflect.TypeFor[tools.Mode](), true}, // "": the saved default
	"SandboxSetting.mode":         {reflect.TypeFor[sandbox.Mode](), false},
	"SandboxInput.mode":           {reflect.TypeFor[sandbox.Mode](), false},
	"SandboxInput.scope":          {reflect.TypeFor[store.Scope](), false},
	"SavedSettings.key_source":    {reflect.TypeFor[config.KeySource](), false},
	"HookView.source":             {reflect.TypeFor[hooks.Source](), false},
	"InstructionFile.scope":       {reflect.TypeFor[instructions.Scope](), false},
	"ChildView.status":            {reflect.TypeFor[store.RunStatus](), true}, // "": no run yet
}

var rowType = reflect.TypeFor[bus.StoredRow]()

// GenerateAll returns every generated file by its path relative to the module's folder:
// wire.ts and the bound methods' stubs.
func GenerateAll(root string) (map[string][]byte, error) {
	g, wire, err := generate(root)
	if err != nil {
		return nil, err
	}
	files := bindings(g)
	if len(g.errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(g.errs, "\n"))
	}
	files[Output] = wire
	return files, nil
}

// Generate returns the contents of wire.ts.
func Generate(root string) ([]byte, error) {
	_, wire, err := generate(root)
	return wire, err
}

func generate(root string) (*gen, []byte, error) {
	g := newGen(root)
	g.special[rowType] = "Row"
	g.renames = renames
	g.fieldEnums = fieldEnums
	g.enumUnions = enumUnions
	roots := rootTypes()
	for _, t := range roots {
		g.add(t)
	}
	if len(g.errs) > 0 {
		return nil, nil, fmt.Errorf("%s", strings.Join(g.errs, "\n"))
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by scripts/gentypes (`make types`) from the Go types; DO NOT EDIT.\n")
	b.WriteString("// Every type the page receives from Go or sends to it. A Go test fails when this file is stale.\n\n")
	writeEvents(&b, g)
	writeChannels(&b, g)
	writeRow(&b, g)
	sorted := slices.Clone(g.order)
	sort.Slice(sorted, func(i, j int) bool { return g.named[sorted[i]] < g.named[sorted[j]] })
	for _, t := range sorted {
		b.WriteString("\n" + g.decl(t))
	}
	if len(g.errs) > 0 {
		return nil, nil, fmt.Errorf("%s", strings.Join(g.errs, "\n"))
	}
	return g, b.Bytes(), nil
}

// rootTypes lists what the page receives or sends: bound methods' parameters and results,
// event payloads, row payloads and channel payloads.
func rootTypes() []reflect.Type {
	var out []reflect.Type
	for _, s := range services {
		t := reflect.TypeOf(s)
		for i := range t.NumMethod() {
			m := t.Method(i).Type
			for j := 1; j < m.NumIn(); j++ {
				out = append(out, m.In(j))
			}
			for j := range m.NumOut() {
				out = append(out, m.Out(j))
			}
		}
	}
	for _, e := range core.EventTypes {
		out = append(out, reflect.TypeOf(bus.PayloadTypes()[e]))
	}
	for _, k := range store.Kinds {
		p, _ := store.NewPayload(k)
		out = append(out, reflect.TypeOf(p).Elem())
	}
	for _, c := range channels {
		if c.payload != nil {
			out = append(out, reflect.TypeOf(c.payload))
		}
	}
	out = append(out, reflect.TypeFor[core.StopReason](), reflect.TypeFor[desktop.ErrorCode]())
	// A big tool result's payload reaches the page cut, with this beside its content.
	out = append(out, reflect.TypeFor[desktop.OutputCut]())
	return out
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Call is one tool call as the model sent it: the one domain type for a call, used by the
// loop core, the approver, the policy and the registry. Arguments is the raw JSON text, kept
// byte for byte (it may not even parse). Boundary types convert to and from it in one place
// each: provider.ToolCall (the wire, loop.fromProvider), store.ToolCall (the stored row,
// loop.storePayload) and loop.ToolCallView (what events show, loop.viewCall).
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// FileSnapshot is the content a file had before a tool wrote or edited it. Content is
// capped at SnapshotCap bytes; Truncated says the cap was hit. The runner does not store
// it (see doc.go).
type FileSnapshot struct {
	Path      string // relative to the workspace root, slash-separated
	Existed   bool
	Content   string
	Truncated bool
}

// SnapshotCap bounds FileSnapshot.Content.
const SnapshotCap = 256 << 10

// Meta is what a tool did besides its text: files touched (relative, slash-separated
// paths), the exit code of a command, whether output was cut, and whether the
// command ran inside the sandbox.
type Meta struct {
	FilesRead    []string
	FilesChanged []string
	ExitCode     *int
	Truncated    bool
	Before       []FileSnapshot
	Sandboxed    bool
}

// Result is what a tool call returns to the model (Content, IsError) and to the UI (Meta).
type Result struct {
	Content string
	IsError bool
	Meta    Meta
}

// Tool is one capability offered to the model. Execute receives arguments that have
// already been validated against Schema, and must honour ctx. out, never nil when
// called through a Registry, receives output as it is produced (shell output); tools
// that produce nothing incrementally ignore it.
type Tool interface {
	Name() string
	Description() string
	Schema() json.RawMessage
	ReadOnly() bool
	Execute(ctx context.Context, ws *Workspace, args json.RawMessage, out func(chunk string)) Result
}

// ErrorCode prefixes the Content of results the registry itself produces, so the
// model (and tests) can tell a refused call from a tool that ran and failed.
type ErrorCode string

const (
	CodeInvalidArguments ErrorCode = "invalid_tool_arguments"
	CodeUnknownTool      ErrorCode = "unknown_tool"
	CodeExecution        ErrorCode = "tool_execution_exception"
)

func codeResult(code ErrorCode, format string, args ...any) Result {
	return Result{Content: string(code) + ": " + fmt.Sprintf(format, args...), IsError: true}
}

func errorf(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// Builtins returns fresh instances of the built-in tools, in the order they are
// offered to the model.
func Builtins() []Tool {
	return []Tool{
		readFileTool{},
		listDirTool{},
		findFilesTool{},
		searchTextTool{},
		writeFileTool{},
		editFileTool{},
		shellTool{},
	}
}

// decodeArgs unmarshals validated arguments into the tool's argument struct.
func decodeArgs[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("decode arguments: %w", err)
	}
	return v, nil
}

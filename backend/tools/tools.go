package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Call is one tool call as the model sent it: the loop core's (core.Call), the one domain type
// for a call, used by the approver, the policy and the registry. Arguments is the raw JSON
// text, kept byte for byte (it may not even parse). Boundary types convert to and from it in
// one place each: provider.ToolCall (the wire, provider.Response.Core), store.ToolCall (the
// stored row, store.PayloadOf) and core.ToolCallView (what events show, loop.viewCall).
type Call = core.Call

// Meta is what a tool did besides its text: the exit code of a command, whether output was
// cut, and whether the command ran inside the sandbox. What a call changed is not reported
// here: the checkpoints record it for every call that may change files, shell included
// (backend/checkpoint, read by the window and the CLI); a second record would drift.
type Meta struct {
	ExitCode  *int
	Truncated bool
	Sandboxed bool
	// HookStop is a PostToolUse hook's "continue": false (the run's error text): the run
	// ends once this result is in.
	HookStop string
	// Child is what the child session of a task call spent, its own children included.
	Child *core.Counters
	// Memory is the memory an approved remember call asks for (Remember), for the run's
	// memory extension to keep.
	Memory *store.NewMemory
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

// Builtins returns the built-in tools, in the order they are offered to the model: each
// file tool's name, whether it only reads, what runs it, and the description the model reads.
func Builtins() []Tool {
	return []Tool{
		builtin[readFileArgs]{"read_file", true, runReadFile, "Read a text file in the workspace. Returns lines prefixed with their line numbers. Use offset and limit to page through long files. Binary files are refused."},
		builtin[listDirArgs]{"list_dir", true, runListDir, "List a folder in the workspace: folders end with /, symlinks show their target, files show their size."},
		builtin[findFilesArgs]{"find_files", true, runFindFiles, "Find files by glob (** matches any number of folders); the glob is matched against paths below path, results are shown relative to the workspace root. Skips .git, node_modules and .gitignore'd paths."},
		builtin[searchTextArgs]{"search_text", true, runSearchText, "Search file contents with a regular expression. Returns path:line: text for each matching line. Skips binary files, .git, node_modules and .gitignore'd paths."},
		builtin[writeFileArgs]{"write_file", false, runWriteFile, "Create or overwrite a file in the workspace with the given content. Missing parent folders are created. Prefer edit_file for small changes to existing files."},
		builtin[editFileArgs]{"edit_file", false, runEditFile, "Replace exact text in an existing file. old_string must match exactly (whitespace included) and occur exactly once, unless replace_all is true. Read the file first."},
		shellTool{},
	}
}

// builtin is a built-in tool whose arguments are an A: its schema is A's, and run gets them
// decoded (arguments that do not decode are an error result the model reads).
type builtin[A any] struct {
	name     string
	readOnly bool
	run      func(ctx context.Context, ws *Workspace, a A, out func(string)) Result
	// description is what the model reads of it.
	description string
}

func (t builtin[A]) Name() string            { return t.name }
func (t builtin[A]) Description() string     { return t.description }
func (t builtin[A]) Schema() json.RawMessage { return schemaFor[A]() }
func (t builtin[A]) ReadOnly() bool          { return t.readOnly }

func (t builtin[A]) Execute(ctx context.Context, ws *Workspace, raw json.RawMessage, out func(string)) Result {
	a, err := decodeArgs[A](raw)
	if err != nil {
		return errorf("%v", err)
	}
	return t.run(ctx, ws, a, out)
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

package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// HunkChoice is the person's answer about one proposed hunk (mode review).
type HunkChoice struct {
	Hunk   int        `json:"hunk"` // from 1, as proposed
	Action HunkAction `json:"action"`
	// Text (edit): what the hunk's lines become — the whole new side of the hunk as
	// shown, context lines included, each line ending in "\n" except maybe the last.
	Text string `json:"text,omitempty"`
}

// HunkAction is what the person chose for a proposed hunk.
type HunkAction string

// Hunk actions.
const (
	HunkKeep HunkAction = "keep"
	HunkDrop HunkAction = "drop"
	HunkEdit HunkAction = "edit"
)

// Reviewable reports whether mode review shows call's hunks before it runs.
func Reviewable(name string) bool { return name == "write_file" || name == "edit_file" }

// Proposal returns what a write_file or edit_file call would change: the file's
// path (relative), its content now ("" when absent) and the content the call
// would leave. Errors are the tool's own (the call is then left to fail as it would).
func Proposal(ws *Workspace, call Call) (path, old, new string, err error) {
	var a editFileArgs
	if err := json.Unmarshal([]byte(call.Arguments), &a); err != nil {
		return "", "", "", fmt.Errorf("%s: arguments: %v", call.Name, err)
	}
	abs, rel, err := ws.open(a.Path)
	if err != nil {
		return "", "", "", fmt.Errorf("%s %s: %v", call.Name, a.Path, err)
	}
	data, err := ws.fsroot.ReadFile(rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", "", fmt.Errorf("%s %s: %v", call.Name, a.Path, cleanErr(err))
	}
	old = string(data)
	path = ws.Rel(abs)
	if call.Name == "write_file" {
		var w writeFileArgs
		json.Unmarshal([]byte(call.Arguments), &w)
		return path, old, w.Content, nil
	}
	switch n := strings.Count(old, a.OldString); {
	case a.OldString == "" || n == 0:
		return "", "", "", fmt.Errorf("edit_file %s: old_string not found", a.Path)
	case n > 1 && !a.ReplaceAll:
		return "", "", "", fmt.Errorf("edit_file %s: old_string occurs %d times", a.Path, n)
	case a.ReplaceAll:
		return path, old, strings.ReplaceAll(old, a.OldString, a.NewString), nil
	}
	return path, old, strings.Replace(old, a.OldString, a.NewString, 1), nil
}

// ReviewedArguments are the arguments that write exactly final to path, for
// the tool call name (write_file: the content; edit_file: the whole file
// replaced, which occurs once by construction).
func ReviewedArguments(name, path, old, final string) string {
	var b []byte
	if name == "edit_file" && old != "" {
		b, _ = json.Marshal(editFileArgs{Path: path, OldString: old, NewString: final})
	} else {
		b, _ = json.Marshal(writeFileArgs{Path: path, Content: final})
	}
	return string(b)
}

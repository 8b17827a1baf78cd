package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// writeFileCap bounds what one write_file or edit_file may produce.
const writeFileCap = 10 << 20

// ---- write_file

type writeFileArgs struct {
	Path    string `json:"path" jsonschema:"description=File path relative to the workspace root; missing folders are created"`
	Content string `json:"content" jsonschema:"description=The complete new content of the file"`
}

func runWriteFile(ctx context.Context, ws *Workspace, a writeFileArgs, _ func(string)) Result {
	if len(a.Content) > writeFileCap {
		return errorf("write_file %s: content is %d bytes, over the %d byte limit", a.Path, len(a.Content), writeFileCap)
	}
	abs, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("write_file %s: %v", a.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return errorf("write_file %s: %v", a.Path, err)
	}
	existed, perm, err := modeOf(ws, rel)
	if err != nil {
		return errorf("write_file %s: %v", a.Path, err)
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := ws.fsroot.MkdirAll(dir, 0o755); err != nil {
			return errorf("write_file %s: create folders: %v", a.Path, cleanErr(err))
		}
	}
	if err := ws.fsroot.WriteFile(rel, []byte(a.Content), perm); err != nil {
		return errorf("write_file %s: %v", a.Path, cleanErr(err))
	}
	verb := "created"
	if existed {
		verb = "overwrote"
	}
	return Result{Content: fmt.Sprintf("%s %s (%d bytes written)", verb, ws.Rel(abs), len(a.Content))}
}

// modeOf says whether a file is there to be replaced, and the mode to keep (0644 for a new
// one). A folder at the path is an error: writing would fail, and clearly is a mistake.
func modeOf(ws *Workspace, rel string) (bool, fs.FileMode, error) {
	fi, err := ws.fsroot.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return false, 0o644, nil
	}
	if err != nil {
		return false, 0, cleanErr(err)
	}
	if fi.IsDir() {
		return false, 0, errors.New("is a directory")
	}
	return true, fi.Mode().Perm(), nil
}

// ---- edit_file

type editFileArgs struct {
	Path       string `json:"path" jsonschema:"description=File path relative to the workspace root"`
	OldString  string `json:"old_string" jsonschema:"minLength=1,description=Exact text to replace, including whitespace; must occur exactly once unless replace_all"`
	NewString  string `json:"new_string" jsonschema:"description=Replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"description=Replace every occurrence instead of requiring exactly one"`
}

func runEditFile(ctx context.Context, ws *Workspace, a editFileArgs, _ func(string)) Result {
	if a.OldString == a.NewString {
		return errorf("edit_file %s: old_string and new_string are the same; nothing to change", a.Path)
	}
	abs, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("edit_file %s: %v", a.Path, err)
	}
	if err := ctx.Err(); err != nil {
		return errorf("edit_file %s: %v", a.Path, err)
	}
	fi, err := ws.fsroot.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errorf("edit_file %s: file does not exist; use write_file to create it", a.Path)
	case err != nil:
		return errorf("edit_file %s: %v", a.Path, cleanErr(err))
	case fi.IsDir():
		return errorf("edit_file %s: is a directory", a.Path)
	case fi.Size() > writeFileCap:
		return errorf("edit_file %s: file is %d bytes, over the %d byte limit", a.Path, fi.Size(), writeFileCap)
	}
	data, err := ws.fsroot.ReadFile(rel)
	if err != nil {
		return errorf("edit_file %s: %v", a.Path, cleanErr(err))
	}
	if looksBinary(data[:min(len(data), sniffLen)]) {
		return errorf("edit_file %s: refusing to edit a binary file", a.Path)
	}
	text := string(data)
	count := strings.Count(text, a.OldString)
	switch {
	case count == 0:
		return errorf("edit_file %s: old_string not found; read the file and copy the text exactly, whitespace included", a.Path)
	case count > 1 && !a.ReplaceAll:
		return errorf("edit_file %s: old_string occurs %d times; include more surrounding text to make it unique, or set replace_all", a.Path, count)
	}
	n := 1
	if a.ReplaceAll {
		n = -1
	}
	updated := strings.Replace(text, a.OldString, a.NewString, n)
	if len(updated) > writeFileCap {
		return errorf("edit_file %s: the result would be %d bytes, over the %d byte limit", a.Path, len(updated), writeFileCap)
	}
	if err := ws.fsroot.WriteFile(rel, []byte(updated), fi.Mode().Perm()); err != nil {
		return errorf("edit_file %s: %v", a.Path, cleanErr(err))
	}
	replaced := 1
	if a.ReplaceAll {
		replaced = count
	}
	return Result{Content: fmt.Sprintf("replaced %d occurrence(s) in %s", replaced, ws.Rel(abs))}
}

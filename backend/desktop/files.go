package desktop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// FileEntry is one file or folder of the workspace tree.
type FileEntry struct {
	Path string `json:"path"` // relative to the workspace root, "/"-separated
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
}

// FilePreview is the start of a file, for the preview pane.
type FilePreview struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	Binary    bool   `json:"binary"`
}

// Touched is a file a tool call read or changed, linked to the row that asked.
type Touched struct {
	Path    string `json:"path"`
	Seq     int64  `json:"seq"` // the assistant row holding the call
	Tool    string `json:"tool"`
	Changed bool   `json:"changed"`
}

// Limits of what the file views send to the page.
const (
	MaxTreeEntries = 20000
	MaxPreview     = 256 << 10
)

// ErrNoWorkspace is returned for a session without a workspace folder.
var ErrNoWorkspace = errors.New("this session has no workspace folder: choose one in the Workspace tab")

// ListFiles lists the workspace as the file tools see it (ignore rules
// applied), sorted, at most MaxTreeEntries entries.
func ListFiles(ctx context.Context, ws *tools.Workspace) ([]FileEntry, error) {
	out := []FileEntry{}
	err := ws.Walk(ctx, func(rel string, d fs.DirEntry) error {
		if len(out) == MaxTreeEntries {
			return tools.ErrStopWalk
		}
		e := FileEntry{Path: rel, Dir: d.IsDir()}
		if !e.Dir {
			if fi, err := d.Info(); err == nil {
				e.Size = fi.Size()
			}
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", ws.Root(), err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// ReadFile returns the first MaxPreview bytes of a file inside the workspace;
// a path outside it is refused by the workspace's confinement.
func ReadFile(ws *tools.Workspace, path string) (FilePreview, error) {
	abs, err := ws.Resolve(path)
	if err != nil {
		return FilePreview{}, err
	}
	f, err := os.Open(abs)
	if err != nil {
		return FilePreview{}, fmt.Errorf("preview %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FilePreview{}, fmt.Errorf("preview %s: %w", path, err)
	}
	if fi.IsDir() {
		return FilePreview{}, fmt.Errorf("preview %s: it is a folder", path)
	}
	buf, err := io.ReadAll(io.LimitReader(f, MaxPreview+1))
	if err != nil {
		return FilePreview{}, fmt.Errorf("preview %s: %w", path, err)
	}
	p := FilePreview{Path: ws.Rel(abs)}
	if len(buf) > MaxPreview {
		buf, p.Truncated = buf[:MaxPreview], true
	}
	if p.Truncated {
		buf = trimPartialRune(buf) // the cut may fall inside a character
	}
	if bytes.IndexByte(buf, 0) >= 0 || !utf8.Valid(buf) {
		p.Binary = true
		return p, nil
	}
	p.Content = string(buf)
	return p, nil
}

// trimPartialRune drops a multi-byte character cut by the preview limit.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		if r, _ := utf8.DecodeLastRune(b); r != utf8.RuneError {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

// ReadFiles lists the files the session's read_file calls read, oldest first, from the calls
// in its assistant rows. norm, when not nil, maps the path the model wrote to the tree's form
// (relative to the workspace root); returning "" drops the entry (a path outside the
// workspace). What calls changed is not guessed here: it is the checkpoints' record
// (core.changedFiles).
func ReadFiles(rows []store.Chunk, norm func(string) string) []Touched {
	out := []Touched{}
	for _, r := range rows {
		if r.Kind != store.KindAssistant {
			continue
		}
		var p store.AssistantPayload
		if json.Unmarshal(r.Payload, &p) != nil {
			continue
		}
		for _, c := range p.ToolCalls {
			if c.Name != "read_file" {
				continue
			}
			var a struct {
				Path string `json:"path"`
			}
			if json.Unmarshal([]byte(c.Arguments), &a) != nil || a.Path == "" {
				continue
			}
			path := a.Path
			if norm != nil {
				if path = norm(path); path == "" {
					continue
				}
			}
			out = append(out, Touched{Path: path, Seq: r.Seq, Tool: c.Name})
		}
	}
	return out
}

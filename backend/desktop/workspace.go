package desktop

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Workspace is the bound service for a session's folder: choosing it, its file tree, a file's
// preview and the files the session's tool calls touched.
type Workspace struct{ c *core }

// ChooseFolder opens the native folder picker; "" when cancelled.
func (h *Workspace) ChooseFolder() (string, error) {
	return h.c.dialogs.ChooseFolder("Choose the workspace folder")
}

// SetWorkspace points the session at a folder; later runs work in it.
func (h *Workspace) SetWorkspace(sessionID, path string) (Session, error) {
	c := h.c
	ctx := c.context()
	if c.running(sessionID) {
		return Session{}, errBusy("change the folder of session " + sessionID)
	}
	path, err := checkFolder(path)
	if err != nil {
		return Session{}, err
	}
	if err := c.db.SetWorkspace(ctx, sessionID, path); err != nil {
		return Session{}, err
	}
	if path != "" {
		_ = c.watches.Show(ctx, path) // the tree reports a folder it cannot watch
	}
	s, err := c.db.GetSession(ctx, sessionID)
	return c.view(s), err
}

// ListFiles lists the session's workspace as the file tools see it.
func (h *Workspace) ListFiles(sessionID string) ([]FileEntry, error) {
	ws, err := h.c.workspace(sessionID)
	if err != nil {
		return nil, err
	}
	defer ws.Release()
	return ListFiles(h.c.context(), ws)
}

// ReadFile previews a file of the session's workspace; paths leading outside the workspace
// are refused.
func (h *Workspace) ReadFile(sessionID, path string) (FilePreview, error) {
	ws, err := h.c.workspace(sessionID)
	if err != nil {
		return FilePreview{}, err
	}
	defer ws.Release()
	return ReadFile(ws, path)
}

// TouchedFiles lists the files the tool calls in the session's rows after seq `after` read
// or changed (0: all rows), each linked to the row holding the call, oldest first. What a
// call changed comes from the checkpoints' change records (a shell command's edits included),
// linked to rows after `after` by their result row; what it read, from its read_file calls.
// The page asks for the rows it has not seen, so the work is proportional to the new rows.
func (h *Workspace) TouchedFiles(sessionID string, after int64) ([]Touched, error) {
	c := h.c
	ctx := c.context()
	// The read_file calls, in the assistant rows naming it: the tool outputs are not read.
	rows, err := c.db.ChunksOfKindAfter(ctx, sessionID, store.KindAssistant, after, `"read_file"`)
	if err != nil {
		return nil, err
	}
	var out []Touched
	if ws, err := c.workspace(sessionID); err != nil {
		out = ReadFiles(rows, nil) // no folder: paths as the model wrote them
	} else {
		out = ReadFiles(rows, func(p string) string {
			abs, err := ws.Resolve(p)
			if err != nil {
				return ""
			}
			return ws.Rel(abs)
		})
		ws.Release()
	}
	changed, err := c.changedFiles(ctx, sessionID, after)
	if err != nil {
		return nil, err
	}
	out = append(out, changed...)
	slices.SortStableFunc(out, func(a, b Touched) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// changedFiles are the files the session's calls changed, by the checkpoints' record, whose
// result rows come after seq after; each is linked to the assistant row holding its call.
func (c *core) changedFiles(ctx context.Context, sessionID string, after int64) ([]Touched, error) {
	cs, err := c.st.Checkpoints.CallChanges(ctx, sessionID, after)
	if err != nil {
		return nil, err
	}
	type call struct{ run, id string }
	type row struct {
		seq  int64
		tool string
	}
	rows := map[call]row{}
	out := make([]Touched, 0, len(cs))
	for _, ch := range cs {
		k := call{ch.RunID, ch.CallID}
		r, ok := rows[k]
		if !ok {
			seq, tc, err := c.db.CallRow(ctx, sessionID, ch.RunID, ch.CallID, ch.Seq)
			switch {
			case errors.Is(err, store.ErrNotFound):
				r = row{seq: ch.Seq} // the result row, when the call's row is gone
			case err != nil:
				return nil, err
			default:
				r = row{seq: seq, tool: tc.Name}
			}
			rows[k] = r
		}
		out = append(out, Touched{Path: ch.Path, Seq: r.seq, Tool: r.tool, Changed: true})
	}
	return out, nil
}

// LaunchFolder returns, once, the folder given on the command line that opened the window
// ("" when none): the page opens a new session there. Later launches arrive as the
// app:open-folder event.
func (h *Workspace) LaunchFolder() string {
	if h.c.instance == nil {
		return ""
	}
	return h.c.instance.TakeFolder()
}

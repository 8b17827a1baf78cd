package desktop

import "github.com/loopdesk/loopdesk/backend/store"

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
// or changed (0: all rows), each linked to the row holding the call. The page asks for the
// rows it has not seen, so the work is proportional to the new rows.
func (h *Workspace) TouchedFiles(sessionID string, after int64) ([]Touched, error) {
	c := h.c
	var rows []store.Chunk
	var err error
	if after > 0 {
		rows, err = c.db.ChunksAfter(c.context(), sessionID, after)
	} else {
		rows, err = c.db.Chunks(c.context(), sessionID)
	}
	if err != nil {
		return nil, err
	}
	ws, err := c.workspace(sessionID)
	if err != nil {
		return TouchedFiles(rows, nil), nil // no folder: paths as the model wrote them
	}
	defer ws.Release()
	return TouchedFiles(rows, func(p string) string {
		abs, err := ws.Resolve(p)
		if err != nil {
			return ""
		}
		return ws.Rel(abs)
	}), nil
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

package desktop

import (
	"fmt"
	"os"
	"strings"

	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/loop"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// Steering a session from the window: the queue of messages sent mid-run, plan mode and
// "Execute plan", compaction the person asks for and undoes, the instruction files, totals
// and importing a session.

// ExecutePrompt is the message "Execute plan" sends: the plan is the session's last answer.
const ExecutePrompt = "Execute the plan above, step by step."

// QueuedMessages lists the session's queued messages: those waiting for the running run's
// next tool boundary, or, with no run going, those a stopped run left (they are stored, so
// a crash or a restart shows them again).
func (h *Chat) QueuedMessages(sessionID string) ([]loopcore.QueuedMessage, error) {
	return h.c.chat.Queued(h.c.context(), sessionID)
}

// RemoveQueued takes back a queued message. It reports false when the message was already
// delivered: then it is a row.
func (h *Chat) RemoveQueued(sessionID, id string) (bool, error) {
	return h.c.chat.Unqueue(h.c.context(), sessionID, id)
}

// SendQueued sends a message left queued (after a Stop, a bound or a restart) now: it starts
// a run whose prompt it is; the other queued messages follow it in order. While a run is
// going the queue is delivered at its next tool boundary, so this is refused as busy.
func (h *Chat) SendQueued(sessionID, id string) (string, error) {
	c := h.c
	queued, err := c.chat.Queued(c.context(), sessionID)
	if err != nil {
		return "", err
	}
	for _, m := range queued {
		if m.ID == id {
			return c.start(sessionID, func(spec *loop.RunSpec) { spec.Prompt, spec.PromptQueuedID = m.Text, m.ID })
		}
	}
	return "", fmt.Errorf("%w: message %s is not queued on session %s", ErrInvalidInput, id, sessionID)
}

// SetMode sets the mode the session's next runs use: "plan" or "execute", and the approval
// mode for it ("" keeps the saved default).
func (h *Chat) SetMode(sessionID, mode, approve string) (store.SessionMode, error) {
	m := store.SessionMode{Mode: store.RunMode(mode), Approve: approve}
	if approve != "" && !tools.Mode(approve).Valid() {
		return store.SessionMode{}, fmt.Errorf("%w: approval mode %q", ErrInvalidInput, approve)
	}
	if err := h.c.db.SetSessionMode(h.c.context(), sessionID, m); err != nil {
		return store.SessionMode{}, err
	}
	return m, nil
}

// ExecutePlan switches the session to execute with the approval mode the person picked and
// continues it: the next run is asked to carry out the plan its last answer holds.
func (h *Chat) ExecutePlan(sessionID, approve string) (string, error) {
	if !tools.Mode(approve).Valid() {
		return "", fmt.Errorf("%w: approval mode %q", ErrInvalidInput, approve)
	}
	runID, err := h.c.start(sessionID, func(spec *loop.RunSpec) {
		spec.Prompt, spec.Plan, spec.Mode = ExecutePrompt, false, tools.Mode(approve)
	})
	if err != nil {
		return "", err // a run still going keeps the session in its mode
	}
	_, err = h.SetMode(sessionID, string(store.ModeExecute), approve)
	return runID, err
}

// CompactHere summarises the session's rows up to the row seq (moved to the end of that row's
// step) in a run of its own: the summary is a visible row, the rows before it stay stored and
// searchable, and the next request carries the summary instead of them.
func (h *Chat) CompactHere(sessionID string, seq int64) (string, error) {
	if seq < 1 {
		return "", fmt.Errorf("%w: choose a row to compact up to", ErrInvalidInput)
	}
	return h.c.start(sessionID, func(spec *loop.RunSpec) { spec.CompactThrough = seq })
}

// UndoCompaction cancels the summary (or set-aside) row at seq: a row records it, and the
// next request carries the rows it replaced again.
func (h *Chat) UndoCompaction(sessionID string, seq int64) error {
	c := h.c
	ctx := c.context()
	if c.running(sessionID) {
		return errBusy("undo a compaction of session " + sessionID)
	}
	summaries, err := c.db.SummaryRows(ctx, sessionID)
	if err != nil {
		return err
	}
	f, err := store.FoldsOf(summaries)
	if err != nil {
		return err
	}
	active := []store.Fold{f.Compaction}
	active = append(active, f.SetAside...)
	for _, x := range active {
		if x.Seq != seq || seq == 0 {
			continue
		}
		text := fmt.Sprintf("Compaction undone: rows %d-%d are sent in full again.", max(x.FromSeq, 1), x.ThroughSeq)
		_, err := c.db.Append(ctx, sessionID, "", store.NewChunk{Kind: store.KindSummary,
			Payload: store.SummaryPayload{Text: text, ThroughSeq: x.ThroughSeq, Undoes: seq}})
		return err
	}
	return fmt.Errorf("%w: row %d is not a compaction in effect", ErrInvalidInput, seq)
}

// InstructionFile is an AGENTS.md as the window shows it: where it is, its hash and size,
// whether runs cut it (Warning says so), and the start of its text.
type InstructionFile struct {
	Scope     string `json:"scope"`
	Path      string `json:"path"`
	SHA256    string `json:"sha256"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
	Warning   string `json:"warning"`
	Preview   string `json:"preview"`
}

// previewChars is how much of a file the window shows.
const previewChars = 4000

// Instructions lists the instruction files the session's next run will carry (personal
// first), read now, with a preview of each.
func (s *Sessions) Instructions(id string) ([]InstructionFile, error) {
	x, err := s.c.db.GetSession(s.c.context(), id)
	if err != nil {
		return nil, err
	}
	files, err := instructions.Load(s.c.instructionsDir, x.Workspace)
	if err != nil {
		return nil, err
	}
	out := make([]InstructionFile, len(files))
	for i, f := range files {
		out[i] = InstructionFile{Scope: string(f.Scope), Path: f.Path, SHA256: f.SHA256, Bytes: f.Bytes,
			Truncated: f.Truncated, Warning: f.Warning(), Preview: loopcore.Cut(f.Content, previewChars)}
	}
	return out, nil
}

// Totals sums what all the session's runs used.
// Child sessions' spend is included, with a share per child (Totals.Children).
func (s *Sessions) Totals(id string) (store.Totals, error) {
	t, _, err := s.c.db.FamilyTotals(s.c.context(), id)
	return t, err
}

// ImportSession reads a session export the person picks into a new session. It returns the
// zero Session when the dialog was cancelled.
func (s *Sessions) ImportSession() (Session, error) {
	path, err := s.c.dialogs.OpenFile("Import a session")
	if err != nil || strings.TrimSpace(path) == "" {
		return Session{}, err
	}
	return s.importFile(path)
}

func (s *Sessions) importFile(path string) (Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return Session{}, fmt.Errorf("%w: %w", ErrInvalidInput, err)
	}
	defer f.Close()
	x, err := stack.ImportSession(s.c.context(), s.c.db, f)
	if err != nil {
		return Session{}, fmt.Errorf("import %s: %w", path, err)
	}
	return s.c.view(x), nil
}

// LiveView is what Go knows of a session right now that the page must never miss: the run
// going on, the calls waiting for a person, the calls executing (a task call whose child
// session works, a long command) and the queued messages. The
// page reconciles with it after opening a session, after a gap in the events and when a run
// ends, so no ordering of events can leave any of them unshown.
type LiveView struct {
	// Seq is the session's latest event when the read began: the read reflects every event up
	// to it (and maybe later ones).
	Seq          uint64                              `json:"seq"`
	RunningRunID string                              `json:"running_run_id"`
	Pending      []loopcore.ApprovalRequestedPayload `json:"pending"`
	Running      []loop.RunningCall                  `json:"running"`
	Queued       []loopcore.QueuedMessage            `json:"queued"`
}

// Live reads the session's LiveView. The run is read first: a call pending or a message
// queued is never shown without the run it belongs to.
func (h *Chat) Live(sessionID string) (LiveView, error) {
	c := h.c
	ctx := c.context()
	v := LiveView{Seq: c.st.Runner.Bus().Seq(sessionID)}
	v.RunningRunID, _ = c.st.Runner.Running(sessionID)
	v.Pending = c.pending(sessionID)
	v.Running = c.st.Runner.RunningCalls(sessionID)
	var err error
	if v.Queued, err = c.chat.Queued(ctx, sessionID); err != nil {
		return LiveView{}, err
	}
	return v, nil
}

package desktop

import (
	"time"

	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/memory"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Settings → Memory and the Memory tab of a folder: the memories later runs carry, each with
// where it came from, and the proposals an import left for the person (docs/memory.md).

// MemoryView is one memory as the window shows it: the memory, where it came from in words
// ("from session S row N", "added by you", "imported from FILE") and, for one a session
// proposed, that session's title ("" when the session is gone), for Show source.
type MemoryView struct {
	ID        string              `json:"id"`
	Scope     store.MemoryScope   `json:"scope"`
	Text      string              `json:"text"`
	Workspace string              `json:"workspace"`
	Source    *store.MemorySource `json:"source"`
	// UpdatedAt is when its text last changed (RFC 3339).
	UpdatedAt   string `json:"updated_at"`
	From        string `json:"from"`
	SourceTitle string `json:"source_title"`
}

// Memories lists the memories in force for the session's folder (its project memories and
// the person's), or every memory of every folder when sessionID is "".
func (h *Settings) Memories(sessionID string) ([]MemoryView, error) {
	ctx := h.c.context()
	var ms []store.Memory
	var err error
	if sessionID == "" {
		ms, err = h.c.db.AllMemories(ctx)
	} else {
		var folder string
		if folder, err = h.memoryFolder(sessionID); err == nil {
			ms, err = h.c.db.MemoriesFor(ctx, folder)
		}
	}
	if err != nil {
		return nil, err
	}
	out := make([]MemoryView, len(ms))
	titles := map[string]string{}
	for i, m := range ms {
		out[i] = MemoryView{ID: m.ID, Scope: m.Scope, Text: m.Text, Workspace: m.Workspace, Source: m.Source,
			UpdatedAt: m.UpdatedAt.Format(time.RFC3339), From: memoryFrom(m)}
		if m.Source == nil {
			continue
		}
		title, seen := titles[m.Source.SessionID]
		if !seen {
			if s, err := h.c.db.GetSession(ctx, m.Source.SessionID); err == nil {
				title = s.Title
				if title == "" {
					title = "(untitled)"
				}
			}
			titles[m.Source.SessionID] = title
		}
		out[i].SourceTitle = title
	}
	return out, nil
}

// memoryFrom says where a memory came from, as the window words it.
func memoryFrom(m store.Memory) string {
	switch {
	case m.Source != nil:
		return "proposed by the agent, approved by you"
	case m.Origin != "":
		return "imported from " + m.Origin
	}
	return "added by you"
}

// memoryFolder is the session's folder as memories name it (memory.Folder).
func (h *Settings) memoryFolder(sessionID string) (string, error) {
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return "", err
	}
	return memory.Folder(s.Workspace)
}

// AddMemory adds the person's own memory: for the session's folder (scope project) or for
// every folder (personal). It returns the list as Memories(listed) gives it.
func (h *Settings) AddMemory(sessionID, scope, text, listed string) ([]MemoryView, error) {
	n := store.NewMemory{Scope: store.MemoryScope(scope), Text: text}
	if n.Scope == store.MemoryProject {
		folder, err := h.memoryFolder(sessionID)
		if err != nil {
			return nil, err
		}
		n.Workspace = folder
	}
	if _, err := h.c.db.AddMemory(h.c.context(), n); err != nil {
		return nil, err
	}
	return h.Memories(listed)
}

// EditMemory replaces a memory's text; rows that carried it keep the old text.
func (h *Settings) EditMemory(id, text, listed string) ([]MemoryView, error) {
	if _, err := h.c.db.EditMemory(h.c.context(), id, text); err != nil {
		return nil, err
	}
	return h.Memories(listed)
}

// RemoveMemory deletes a memory.
func (h *Settings) RemoveMemory(id, listed string) ([]MemoryView, error) {
	if err := h.c.db.RemoveMemory(h.c.context(), id); err != nil {
		return nil, err
	}
	return h.Memories(listed)
}

// MemoryProposals lists the entries imports proposed (loopdesk memory import), waiting for
// the person.
func (h *Settings) MemoryProposals() ([]store.MemoryProposal, error) {
	return h.c.db.MemoryProposals(h.c.context())
}

// AnswerMemoryProposal accepts (a memory from now on) or rejects a proposal, and returns the
// proposals left.
func (h *Settings) AnswerMemoryProposal(id string, accept bool) ([]store.MemoryProposal, error) {
	ctx := h.c.context()
	var err error
	if accept {
		_, err = h.c.db.AcceptMemoryProposals(ctx, []string{id})
	} else {
		err = h.c.db.RejectMemoryProposals(ctx, []string{id})
	}
	if err != nil {
		return nil, err
	}
	return h.c.db.MemoryProposals(ctx)
}

// MemoryFigure is what the memories in force add to each request of the session's next run,
// shown beside AGENTS.md: how many, and about how many tokens their note takes.
type MemoryFigure struct {
	Count  int   `json:"count"`
	Tokens int64 `json:"tokens"`
	// Warning says how many of the oldest memories are left out to keep the note within its
	// bound ("" when none is).
	Warning string `json:"warning"`
}

// MemoryFigure counts the memories the session's folder's runs carry and estimates their note
// as the meters estimate (core.EstimateMessage), oldest left out past the note's bound as a
// run leaves them.
func (h *Settings) MemoryFigure(sessionID string) (MemoryFigure, error) {
	folder, err := h.memoryFolder(sessionID)
	if err != nil {
		return MemoryFigure{}, err
	}
	ms, err := h.c.db.MemoriesFor(h.c.context(), folder)
	if err != nil {
		return MemoryFigure{}, err
	}
	n, due := loopcore.NoteMemories(nil, false, store.MemoryRefs(ms))
	if !due {
		return MemoryFigure{}, nil
	}
	return MemoryFigure{Count: len(n.Carried), Tokens: loopcore.EstimateMessage(store.Frame(n.Text)), Warning: n.Warning}, nil
}

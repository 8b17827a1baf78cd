package desktop

import "github.com/loopdesk/loopdesk/backend/store"

// SessionPage is a page of the session list (archived sessions, or the others), with what
// the list needs to show of the rest without reading it: how many sessions there are, and
// each project's count.
type SessionPage struct {
	Sessions []SessionSummary `json:"sessions"`
	// Next continues the list (ListSessionsPage's after); "" after the last page.
	Next     string               `json:"next"`
	Total    int                  `json:"total"`
	Projects []store.ProjectCount `json:"projects"`
}

// MaxListPage is the most sessions one page holds.
const MaxListPage = 500

// ListSessionsPage returns up to limit sessions (at most MaxListPage) of the list, most
// recently updated first, from after (a page's Next; "" for the first page): the archived
// ones when archived. The first page also counts the sessions and each project's.
func (s *Sessions) ListSessionsPage(archived bool, after string, limit int) (SessionPage, error) {
	ctx := s.c.context()
	f := store.ListFilter{Archived: archived}
	page, err := s.c.db.ListSessionsPage(ctx, f, after, min(limit, MaxListPage))
	if err != nil {
		return SessionPage{}, err
	}
	out := SessionPage{Sessions: make([]SessionSummary, len(page.Sessions)), Next: page.Next, Projects: []store.ProjectCount{}}
	for i, x := range page.Sessions {
		out.Sessions[i] = SessionSummary{Session: s.c.view(x), Running: s.c.running(x.ID)}
	}
	if after == "" {
		if out.Total, err = s.c.db.CountSessions(ctx, f); err == nil {
			out.Projects, err = s.c.db.ProjectCounts(ctx, archived)
		}
	}
	return out, err
}

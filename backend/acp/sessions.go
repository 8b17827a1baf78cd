package acp

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/store"
)

// listPage is how many sessions one session/list answer carries.
const listPage = 50

// ListSessions lists the database's sessions, whoever made them (the window, the CLI, an
// editor), most recently updated first, only those of cwd when it is given, listPage at a
// time. The cursor is the offset of the next page: sessions that change meanwhile may move
// between pages.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	all, err := a.cfg.Stack.DB.ListSessions(ctx)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	match := all[:0:0]
	for _, s := range all {
		if p.Cwd == nil || filepath.Clean(*p.Cwd) == s.Workspace {
			match = append(match, s)
		}
	}
	start := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 || n > len(match) {
			return sdk.ListSessionsResponse{}, invalidParams("cursor %q is not one this agent gave", *p.Cursor)
		}
		start = n
	}
	end := min(start+listPage, len(match))
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, s := range match[start:end] {
		title, updated := s.Title, s.UpdatedAt.UTC().Format(time.RFC3339Nano)
		resp.Sessions = append(resp.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(s.ID), Cwd: s.Workspace,
			Title: &title, UpdatedAt: &updated})
	}
	if end < len(match) {
		next := strconv.Itoa(end)
		resp.NextCursor = &next
	}
	return resp, nil
}

// LoadSession replays any session of the database, then makes it ready for a prompt. The
// session keeps its own folder: the request's cwd is not used.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	modes, err := a.open(ctx, string(p.SessionId), p.McpServers, true)
	return sdk.LoadSessionResponse{Modes: modes}, err
}

// ResumeSession is LoadSession without the replay: for a client that still shows the session.
func (a *Agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	modes, err := a.open(ctx, string(p.SessionId), p.McpServers, false)
	return sdk.ResumeSessionResponse{Modes: modes}, err
}

func (a *Agent) open(ctx context.Context, id string, servers []sdk.McpServer, replay bool) (*sdk.SessionModeState, error) {
	s, err := a.cfg.Stack.DB.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id)
	} else if err != nil {
		return nil, err
	}
	plan := lastRunPlanned(ctx, a.cfg.Stack.DB, s.ID)
	if replay {
		if err := a.replay(ctx, s); err != nil {
			return nil, err
		}
	}
	st, own, err := a.stackFor(ctx, servers)
	if err != nil {
		return nil, err
	}
	a.remember(&session{id: s.ID, workspace: s.Workspace, plan: plan, st: st, own: own})
	return modes(plan), nil
}

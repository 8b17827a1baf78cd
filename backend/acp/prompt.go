package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// The prompts that are controls of the session rather than a message to the model.
const (
	promptRegenerate = "/regenerate"
	promptRetry      = "/retry"
)

// Prompt is one run of the loop: its events stream as session/update notifications and the
// response, sent after the last of them, carries the stop reason. A prompt that is
// /regenerate or /retry is that control of the use-case layer (backend/chat) instead.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.lookup(ctx, string(p.SessionId))
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, imgs, err := promptContent(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	refs, err := a.storeImages(ctx, imgs)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	a.mu.Lock()
	plan := s.plan
	a.mu.Unlock()

	prev, done := a.track(s.id)
	defer done()
	if err := await(ctx, s, prev); err != nil {
		return sdk.PromptResponse{}, err
	}
	var events <-chan bus.Event
	unsubscribe := func() {}
	defer func() { unsubscribe() }()
	// Subscribed before the run starts, to the session it starts in (a fork's, for /regenerate).
	run := chat.Run{Prompt: text, Images: refs, Plan: &plan, Before: func(id string) { events, unsubscribe = subscribe(s.st, id) }}
	in, runID, err := a.start(ctx, s, run, len(refs) == 0)
	switch {
	case errors.Is(err, loop.ErrBusy): // loop.ErrBusy is store.ErrSessionBusy: who runs it?
		where := "in another Loopdesk process (the window or the CLI); stop it there or wait for it to end"
		if _, here := s.st.Runner.Running(s.id); here {
			where = "already; cancel it or wait for it to end"
		}
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]string{"details": "this session is running " + where})
	case errors.Is(err, stack.ErrInvalidInput):
		return sdk.PromptResponse{}, sdk.NewInvalidRequest(map[string]string{"details": err.Error()})
	case err != nil:
		return sdk.PromptResponse{}, fmt.Errorf("start the run: %w", err)
	}
	t := newTurn(a, in)
	t.to = s.id // a fork's run is told as this prompt's
	res := t.follow(ctx, runID, events)
	if msg := stopMessage(res); msg != "" {
		t.send(sdk.UpdateAgentMessageText(msg))
	}
	meta := resultMeta(res)
	if in.id != s.id {
		t.send(sdk.UpdateAgentMessageText(fmt.Sprintf("\n\n[Loopdesk regenerated the reply in a new session, %s (a version "+
			"of this one, which keeps its rows); load that session to go on from this version]", in.id)))
		meta["loopdesk"].(map[string]any)["sessionId"] = in.id
	}
	return sdk.PromptResponse{StopReason: StopReason(res.Status), Meta: meta}, nil
}

// start starts the prompt's run through the use-case layer: a run of the session, or, for a
// prompt that is /regenerate or /retry alone (plain, no images), that control. It returns
// the session the run is in (a fork of s for /regenerate, which keeps the files as they are)
// and the run's id.
func (a *Agent) start(ctx context.Context, s *session, run chat.Run, plain bool) (*session, string, error) {
	svc := a.chatOf(s)
	switch {
	case plain && run.Prompt == promptRegenerate:
		f, err := svc.Regenerate(ctx, s.id, 0, chat.FilesKeep, run)
		if err != nil {
			return nil, "", err
		}
		return &session{id: f.Session.ID, workspace: f.Session.Workspace, st: s.st}, f.RunID, nil
	case plain && run.Prompt == promptRetry:
		runID, err := svc.Retry(ctx, s.id, run)
		return s, runID, err
	}
	runID, err := svc.Start(ctx, s.id, run)
	return s, runID, err
}

// resultMeta is Loopdesk's own account of the run, under _meta.loopdesk: the run id (the
// journal's key) and the exact status and totals ACP's stop reasons cannot carry.
func resultMeta(r core.Result) map[string]any {
	return map[string]any{"loopdesk": map[string]any{"runId": r.RunID, "status": r.Status, "error": r.Error,
		"turns": r.Turns, "toolCalls": r.ToolCalls, "inputTokens": r.InputTokens, "outputTokens": r.OutputTokens,
		"costUsd": r.CostUSD}}
}

// track records the session's running prompt so stopAll can cancel its run and wait for
// it. prev is the running prompt this one replaces, if any (see await).
func (a *Agent) track(sessionID string) (prev <-chan struct{}, done func()) {
	mine := make(chan struct{})
	a.wg.Add(1)
	a.mu.Lock()
	prev = a.prompts[sessionID]
	a.prompts[sessionID] = mine
	a.mu.Unlock()
	return prev, func() {
		a.mu.Lock()
		if a.prompts[sessionID] == mine {
			delete(a.prompts, sessionID)
		}
		a.mu.Unlock()
		close(mine)
		a.wg.Done()
	}
}

// await waits until the prompt this one replaces (prev) has returned: a second
// session/prompt makes the SDK cancel the first request, whose run is then being cancelled,
// and the runner takes one run per session.
func await(ctx context.Context, s *session, prev <-chan struct{}) error {
	if prev == nil {
		return nil
	}
	s.st.Runner.Cancel(s.id)
	select {
	case <-prev:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// subscribe delivers the events of the session sessionID, and those of the child sessions its task calls
// start (and theirs), to the returned channel until unsubscribe. The channel is unbuffered:
// the bus queues for a reader that is busy (deltas merge, the rest waits), so follow must
// read it until the run has finished.
func subscribe(st *stack.Stack, sessionID string) (<-chan bus.Event, func()) {
	events := make(chan bus.Event)
	ctx, cancel := context.WithCancel(context.Background())
	family := map[string]bool{sessionID: true} // only the bus goroutine below touches it
	exited := st.Runner.Bus().Subscribe(ctx, "", func(ev bus.Event) {
		if !family[ev.SessionID] {
			if ev.ParentSessionID == "" || !family[ev.ParentSessionID] {
				return // another session's
			}
			family[ev.SessionID] = true // every event of a child names its parent session
		}
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	})
	return events, func() { cancel(); <-exited }
}

// promptText is promptContent for a prompt without images.
func promptText(blocks []sdk.ContentBlock) (string, error) {
	text, imgs, err := promptContent(blocks)
	if err == nil && len(imgs) > 0 {
		return "", invalidParams("images are not taken here")
	}
	return text, err
}

// promptContent turns the prompt's content blocks into the run's prompt: text as it is,
// embedded resources (the editor's context) as fenced text with their URI, links by URI, and
// images (base64, PNG, JPEG, WebP or GIF: checked by decoding) to go with it.
func promptContent(blocks []sdk.ContentBlock) (string, [][]byte, error) {
	var parts []string
	var imgs [][]byte
	for _, b := range blocks {
		switch {
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err == nil {
				_, err = images.Check(data)
			}
			if err != nil {
				return "", nil, invalidParams("an image block Loopdesk cannot read: %v", err)
			}
			imgs = append(imgs, data)
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("Context from %s:\n```\n%s\n```", r.Uri, r.Text))
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("(see %s)", b.ResourceLink.Uri))
		case b.Audio != nil:
			return "", nil, invalidParams("Loopdesk's prompts take text and images: audio is not supported (promptCapabilities)")
		default:
			return "", nil, invalidParams("a prompt block of a kind Loopdesk cannot read (binary resource?)")
		}
	}
	text := strings.TrimSpace(strings.Join(parts, "\n\n"))
	if text == "" && len(imgs) == 0 {
		return "", nil, invalidParams("the prompt is empty")
	}
	return text, imgs, nil
}

// storeImages keeps a prompt's images in the journal (deduplicated by hash) and names them for
// the prompt's row; a request carries copies fitted to the provider's limits.
func (a *Agent) storeImages(ctx context.Context, imgs [][]byte) ([]store.ImageRef, error) {
	var refs []store.ImageRef
	for _, data := range imgs {
		im, err := images.Check(data)
		if err != nil {
			return nil, invalidParams("an image block Loopdesk cannot read: %v", err)
		}
		hash, err := a.cfg.Stack.DB.PutBlob(ctx, store.Blob{Data: data, MIME: im.MIME, Width: im.Width, Height: im.Height})
		if err != nil {
			return nil, fmt.Errorf("store an image of the prompt: %w", err)
		}
		refs = append(refs, store.ImageRef{Hash: hash, MIME: im.MIME, Width: im.Width, Height: im.Height})
	}
	return refs, nil
}

// StopReason maps a Loopdesk run status to ACP's stop reason (docs/acp.md lists it): the
// statuses ACP has no word for end with the nearest one, and stopMessage says why.
func StopReason(s core.StopReason) sdk.StopReason {
	switch s {
	case core.StopCompleted:
		return sdk.StopReasonEndTurn
	case core.StopMaxTurns, core.StopMaxToolCalls, core.StopLoopDetected:
		return sdk.StopReasonMaxTurnRequests
	case core.StopTokenBudget, core.StopTruncated, core.StopContextExceeded, core.StopCostBudget:
		return sdk.StopReasonMaxTokens
	case core.StopRefused:
		return sdk.StopReasonRefusal
	case core.StopCancelled:
		return sdk.StopReasonCancelled
	}
	return sdk.StopReasonEndTurn // timeout, provider_error, error
}

// stopMessage is the final agent message of a run that did not simply complete: Loopdesk's
// own status and reason, which ACP's stop reasons cannot carry.
func stopMessage(r core.Result) string {
	switch r.Status {
	case core.StopCompleted, core.StopCancelled, "":
		return ""
	}
	msg := fmt.Sprintf("\n\n[Loopdesk stopped the run: %s", r.Status)
	if r.Error != "" {
		msg += " — " + r.Error
	}
	return msg + "]"
}

// runStatus reads a finished run's result from the store, for a run whose run_finished
// event this prompt did not see.
func runStatus(ctx context.Context, db *store.DB, sessionID, runID string) core.Result {
	runs, err := db.ListRuns(ctx, sessionID)
	if err != nil {
		return core.Result{Status: core.StopError, Error: err.Error()}
	}
	for _, r := range runs {
		if r.ID == runID {
			return core.Result{Status: core.StopReason(r.Status), Error: r.Error, RunID: runID}
		}
	}
	return core.Result{Status: core.StopError, Error: "the run's record is missing", RunID: runID}
}

package desktop

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/loopdesk/loopdesk/backend/approvals"
	"github.com/loopdesk/loopdesk/backend/config"
	loopcore "github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Reports are the window's bound methods for what the agent costs and asks: the approval
// report (a session's in its Budget tab, every session's in the Approvals view) and the
// provider's latest rate limits beside the budget meters.
type Reports struct{ c *core }

// ApprovalReport is the approval report of one session ("" for every session) over the
// answers of the last since ("" for all time; 7d, 36h, 90m), as `loopdesk approvals report`.
func (h *Reports) ApprovalReport(sessionID, since string) (approvals.Report, error) {
	f := approvals.Filter{SessionID: strings.TrimSpace(sessionID)}
	if since = strings.TrimSpace(since); since != "" {
		age, err := approvals.ParseAge(since)
		if err != nil {
			return approvals.Report{}, fmt.Errorf("%w: %v", ErrInvalidInput, err)
		}
		f.Since = time.Now().Add(-age)
	}
	return approvals.Build(h.c.context(), h.c.db, f)
}

// AcceptSuggestion saves a suggested rule as Always allow saves one and returns it; it decides
// calls from the next one on (Settings → Rules lists it).
func (h *Reports) AcceptSuggestion(s approvals.Suggestion) (store.Rule, error) {
	return approvals.Accept(h.c.context(), h.c.db, s)
}

// ProviderLimits are the rate-limit headers the session's provider sent last, and when; nil
// when it has sent none since the window opened.
func (h *Reports) ProviderLimits(sessionID string) (*provider.Limits, error) {
	s, err := h.c.db.GetSession(h.c.context(), sessionID)
	if err != nil {
		return nil, err
	}
	name := s.Provider
	if name == "" {
		name = config.DefaultProvider
	}
	if l, ok := h.c.limits.Latest(name); ok {
		return &l, nil
	}
	return nil, nil
}

// firstRows is how many of a session's first rows HarnessTokens reads to find its first
// answer: the prompt, Loopdesk's notes and the answer fit well within it.
const firstRows = 32

// HarnessTokens is what Loopdesk itself added to each request of the session's last run
// (its run_started's harness_tokens, kept with the run), so the Budget tab shows it when the
// session opens; counted as the provider counts when that run's first request carried no
// history (stack.MeasuredHarness). nil before any run recorded it.
func (h *Reports) HarnessTokens(sessionID string) (*loopcore.HarnessTokens, error) {
	ctx := h.c.context()
	raw, runID, err := h.c.db.LastHarness(ctx, sessionID)
	if err != nil || raw == nil {
		return nil, err
	}
	var ht loopcore.HarnessTokens
	if err := json.Unmarshal(raw, &ht); err != nil {
		return nil, fmt.Errorf("harness tokens of session %s: %w", sessionID, err)
	}
	first, err := h.c.db.ChunksBefore(ctx, sessionID, firstRows+1, firstRows)
	if err != nil {
		return nil, err
	}
	return stack.MeasuredHarness(&ht, runID, first), nil
}

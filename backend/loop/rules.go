package loop

import (
	"context"

	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// StoreRules lets the approval policy (tools.Approver) read the rules kept in
// the store. The window and the CLI both wire it.
type StoreRules struct{ DB *store.DB }

var _ tools.RuleSource = StoreRules{}

// ListRules implements tools.RuleSource.
func (r StoreRules) ListRules(ctx context.Context, sessionID, workspace string) ([]tools.Rule, error) {
	rs, err := r.DB.ListRules(ctx, sessionID, workspace)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Rule, len(rs))
	for i, x := range rs {
		out[i] = tools.Rule{ID: x.ID, Tool: x.Tool, Pattern: x.Pattern, Effect: tools.Effect(x.Effect),
			Scope: string(x.Scope), ScopeID: x.ScopeID}
	}
	return out, nil
}

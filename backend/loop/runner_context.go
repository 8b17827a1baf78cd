package loop

import "context"

// ContextTokens is the context fill the session's next request would have with the system
// prompt system, estimated from the rows the runner holds for that request (its request cache,
// read from the store when it holds none: the rows since the last compaction). The window's
// idle meter asks it, so opening a session and then continuing it read those rows once.
func (r *Runner) ContextTokens(ctx context.Context, sessionID, system string) (int64, error) {
	rc := r.requests.Take(sessionID)
	rows, err := rc.Rows(ctx, r.cfg.Store, sessionID)
	if err != nil {
		return 0, err
	}
	return rc.Estimate(rows, system)
}

package hooks

import "context"

// Has says whether Fire for event in workspace may run a hook: true when an active hook
// names the event, and true as well when a configuration file could not be read (Fire
// then reports it as a warning, so the caller should fire). The runner asks before a run's
// last rows are stored: with no Stop hook to read them in the transcript, the answer and
// the run's end share one durable commit. The configuration is read afresh, as Fire does.
func (e *Engine) Has(ctx context.Context, workspace string, event Event) bool {
	active, errs := e.Active(ctx, workspace)
	if len(errs) > 0 {
		return true
	}
	for _, h := range active {
		if h.Event == event {
			return true
		}
	}
	return false
}

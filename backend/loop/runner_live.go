package loop

import "github.com/loopdesk/loopdesk/backend/tools"

// RunningCall is a call of a session's running run that is executing now (tools.LiveCalls).
type RunningCall = tools.RunningCall

// RunningCalls lists the calls the session's running run is executing now, oldest first;
// none when no run is going (or it is finishing: its run_finished is out).
func (r *Runner) RunningCalls(sessionID string) []RunningCall {
	r.mu.Lock()
	rn := r.bySession[sessionID]
	if rn == nil || rn.id == "" || rn.end.finishing {
		r.mu.Unlock()
		return []RunningCall{}
	}
	r.mu.Unlock()
	return rn.tools.live.List()
}

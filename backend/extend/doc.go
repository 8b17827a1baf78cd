// Package extend holds the extensions of a run: cross-cutting behaviour that wraps the ports
// the runner drives (the model, the approver and the tool runner, loop.Ports), in the shape of
// connect-go's interceptors — a loop.Extension takes the next ports and returns ports that do
// their part around them. stack.New composes them once (stack.go, extensions); the runner
// applies them to each run's ports when the run fixes its tools and knows nothing of them.
//
// An extension changes what crosses a port — a request's fields (a call's proposal, the
// grants that pre-approve it), a decision (the hunks a person kept), a result's text (a
// review's note) — and keeps what it needs between two crossings for the run it wraps. It
// decides nothing about the run itself: whether a call runs, whether the run goes on or
// stops and what it may spend are the core's (backend/loop/core), fed as inputs.
//
// PromptHooks is the check of a prompt (loop.Admission): SessionStart and UserPromptSubmit.
//
// The extensions: Hooks (PreToolUse, PostToolUse and Notification around a call: the call
// as the hooks leave it, their decision for the approver, their text with the result, their
// runs recorded as rows, their stop handed to the core), Skills (the allowed-tools of the
// skills loaded in the session pre-approve their calls), Review (approval mode review: hunks
// proposed, chosen and reported) and Images (a request's images loaded and fitted to the
// provider's limits, or left out for a model that is sent none).
package extend

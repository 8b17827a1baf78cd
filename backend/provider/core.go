package provider

import "github.com/loopdesk/loopdesk/backend/loop/core"

// Core is the response as the loop core takes it, every call included (the core drops invalid
// calls it cannot answer and answers the others with an error). origin is what the run's
// client was opened as; a response that names what answered wins. A refusal for length is
// ResponseContextExceeded and one for images ResponseImageRefused.
func (r Response) Core(origin core.Origin) core.ModelResponse {
	out := core.ModelResponse{Text: r.Text, Reasoning: r.Reasoning, Status: core.ResponseStatus(r.Status),
		Usage: r.Usage.Core(), Raw: r.Raw, Origin: origin}
	if r.Origin.Kind != "" {
		// The client names what answered (its configured name, wire kind and the model).
		out.Origin = core.Origin{Provider: r.Origin.Provider, Kind: r.Origin.Kind, Model: r.Origin.Model}
		if out.Origin.Provider == "" {
			out.Origin.Provider = origin.Provider
		}
	}
	if r.Err != nil {
		out.Err = r.Err.Error()
	}
	if out.Status == "" {
		out.Status = core.ResponseProviderError
	}
	if ContextExceeded(r.Err) {
		out.Status = core.ResponseContextExceeded
	}
	if ImageRejected(r.Err) {
		out.Status, out.AllImagesRefused = core.ResponseImageRefused, RefusesAllImages(r.Err)
	}
	for _, c := range r.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, core.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	for _, c := range r.InvalidToolCalls {
		out.InvalidToolCalls = append(out.InvalidToolCalls, core.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return out
}

// Core is the usage report as the core counts it; a report of nothing is Unreported.
func (u Usage) Core() core.Usage {
	return core.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
		Unreported: u.InputTokens == 0 && u.OutputTokens == 0}
}

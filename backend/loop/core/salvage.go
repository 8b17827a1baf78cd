package core

import "strings"

// A model call cut by Stop ends in one of three ways (finalize: commit, salvage or discard).
// A call that finished before the stop was taken is committed as any turn (ModelResponded).
// A call stopped in the middle is salvaged when text had streamed: the text is stored as the
// turn, marked stopped, and later requests carry it, so what the person read on screen stays
// in the conversation and the model sees where it was cut. The cut turn's tool calls — complete
// or not — are never stored, run or sent. Nothing is kept of a call that streamed no text
// (reasoning alone, or calls alone): it is discarded, its spend on a usage row when it had any.

// salvage keeps what a stopped model call streamed (partial), when the run is in the middle of
// one; it returns the rows and events to put out before the run stops.
func salvage(s State, partial *ModelResponse) (State, []Effect) {
	if s.Phase != PhaseStreaming || partial == nil {
		return s, nil
	}
	s, priced := spend(s, partial.Usage)
	if strings.TrimSpace(partial.Text) == "" {
		if priced.Usage == (Usage{}) {
			return s, nil
		}
		return s, []Effect{Persist{[]Row{UsageRow{Usage: priced, Reason: "The run was stopped before the model's reply had any text"}}}}
	}
	// The provider's own message goes back only when it is what the person saw: text alone.
	// With calls in it, or reasoning (a cut thinking block carries no signature), the turn is
	// sent as plain text, which every wire takes.
	raw := partial.Raw
	if len(partial.ToolCalls)+len(partial.InvalidToolCalls) > 0 || partial.Reasoning != "" {
		raw = nil
	}
	s.Output = partial.Text
	s.ContextTokens += EstimateTokens(partial.Text) + EstimateTokens(partial.Reasoning)
	return s, []Effect{
		Persist{[]Row{AssistantRow{Text: partial.Text, Reasoning: partial.Reasoning, Raw: raw, Origin: partial.Origin, Usage: priced, Stopped: true}}},
		Emit{AssistantMessagePayload{Text: partial.Text, Reasoning: partial.Reasoning, ToolCalls: []ToolCallView{}}},
	}
}

package store

import (
	"encoding/json"
	"fmt"
)

// Wire shapes of OpenAI Chat Completions messages. Field order is fixed by
// these structs, which is what makes Messages byte-for-byte deterministic.
type (
	wireText struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	wireAssistant struct {
		Role      string         `json:"role"`
		Content   string         `json:"content"`
		ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
	}
	wireToolCall struct {
		ID       string       `json:"id"`
		Type     string       `json:"type"`
		Function wireFunction `json:"function"`
	}
	wireFunction struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	wireTool struct {
		Role       string `json:"role"`
		ToolCallID string `json:"tool_call_id"`
		Content    string `json:"content"`
	}
)

// Messages derives the OpenAI Chat Completions messages from a session's
// rows (in seq order). It is the only place that does so: replaying the
// same rows always yields the same bytes, and rows appended later only add
// messages at the end, so provider prompt caches keep hitting.
//
//   - user -> {"role":"user","content":text}
//   - assistant -> {"role":"assistant","content":text,"tool_calls":[{"id","type":"function","function":{"name","arguments"}}]}
//     with arguments re-sent exactly as the model produced them. content is
//     always a string (possibly empty): every server we target accepts "",
//     while some reject null. Reasoning is NOT sent: OpenAI rejects or
//     ignores it, DeepSeek answers 400 when reasoning_content comes back, and
//     local servers re-render it into the prompt inconsistently. It stays in
//     the row for the UI and exports.
//   - tool_result -> {"role":"tool","tool_call_id":call_id,"content":content}
//     (is_error is conveyed by the content the loop wrote).
//   - approval -> nothing: a denial reaches the model through the tool result.
//   - restore -> nothing: it records what the person did to the folder.
//   - system -> {"role":"system","content":text}
//   - summary -> the last summary row replaces every earlier row with
//     seq <= ThroughSeq by one user message carrying its text, placed where
//     the first replaced row was. System rows are kept: they are
//     instructions, not conversation to condense. Earlier summaries are
//     superseded by the last one.
func Messages(chunks []Chunk) ([]json.RawMessage, error) {
	f, err := FoldsOf(chunks)
	if err != nil {
		return nil, err
	}
	through, summary := f.Compaction.ThroughSeq, f.Compaction.Framed()
	out := make([]json.RawMessage, 0, len(chunks))
	summarized := false
	asideDone := make([]bool, len(f.SetAside))
	emit := func(v any) error {
		b, err := marshal(v)
		if err == nil {
			out = append(out, b)
		}
		return err
	}
	for _, c := range chunks {
		var err error
		switch c.Kind {
		case KindSystem:
			var p SystemPayload
			if err = json.Unmarshal(c.Payload, &p); err == nil {
				err = emit(wireText{Role: "system", Content: p.Text})
			}
		case KindSummary:
			// Folded in below at the position of the first replaced row.
		case KindApproval, KindUsage, KindHook:
		default:
			if c.Seq <= through {
				if !summarized {
					summarized = true
					err = emit(wireText{Role: "user", Content: summary})
				}
				break
			}
			if i := f.asideIndex(c.Seq); i >= 0 {
				if !asideDone[i] {
					asideDone[i] = true
					err = emit(wireText{Role: "user", Content: f.SetAside[i].Framed()})
				}
				break
			}
			err = message(c, emit)
		}
		if err != nil {
			return nil, fmt.Errorf("messages: row %d (%s): %w", c.Seq, c.Kind, err)
		}
	}
	if f.Compaction.Seq > 0 && !summarized {
		// Only system rows (or none) before ThroughSeq: the summary still
		// has to reach the model; it goes where its row is.
		return insertSummary(chunks, out, summary)
	}
	return out, nil
}

// Fold is one summary row in effect: the rows FromSeq..ThroughSeq (from the first row when
// FromSeq is 0) reach the model as Text.
type Fold struct {
	Seq        int64  `json:"seq"`
	FromSeq    int64  `json:"from_seq"`
	ThroughSeq int64  `json:"through_seq"`
	Text       string `json:"text"`
}

// Folds are the summary rows in effect in a session: the last compaction not undone (earlier
// ones are superseded by it), and every set-aside not undone.
type Folds struct {
	Compaction Fold // Seq 0: none
	SetAside   []Fold
}

// FoldsOf reads the summary rows of chunks (in seq order).
func FoldsOf(chunks []Chunk) (Folds, error) {
	var all []Fold
	undone := map[int64]bool{}
	for _, c := range chunks {
		if c.Kind != KindSummary {
			continue
		}
		var s SummaryPayload
		if err := json.Unmarshal(c.Payload, &s); err != nil {
			return Folds{}, fmt.Errorf("messages: row %d: summary payload: %w", c.Seq, err)
		}
		if s.Undoes > 0 {
			undone[s.Undoes] = true
			continue
		}
		all = append(all, Fold{Seq: c.Seq, FromSeq: s.FromSeq, ThroughSeq: s.ThroughSeq, Text: s.Text})
	}
	var f Folds
	for _, x := range all {
		switch {
		case undone[x.Seq]:
		case x.FromSeq > 0:
			f.SetAside = append(f.SetAside, x)
		default:
			f.Compaction = x
		}
	}
	return f, nil
}

func (f Folds) asideIndex(seq int64) int {
	for i, a := range f.SetAside {
		if seq >= a.FromSeq && seq <= a.ThroughSeq {
			return i
		}
	}
	return -1
}

// message emits the wire message of one user, assistant or tool_result row.
func message(c Chunk, emit func(any) error) error {
	switch c.Kind {
	case KindUser:
		var p UserPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return err
		}
		return emit(wireText{Role: "user", Content: p.Text})
	case KindAssistant:
		var p AssistantPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return err
		}
		m := wireAssistant{Role: "assistant", Content: p.Text}
		for _, tc := range p.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, wireToolCall{ID: tc.ID, Type: "function",
				Function: wireFunction{Name: tc.Name, Arguments: tc.Arguments}})
		}
		return emit(m)
	case KindToolResult:
		var p ToolResultPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return err
		}
		return emit(wireTool{Role: "tool", ToolCallID: p.CallID, Content: p.Content})
	case KindRestore, KindNote:
		text, err := NoteText(c)
		if err != nil {
			return err
		}
		return emit(wireText{Role: "user", Content: text})
	}
	return fmt.Errorf("unknown kind %q", c.Kind)
}

// insertSummary handles a summary whose range held only system rows: the
// summary message follows those system messages.
func insertSummary(chunks []Chunk, out []json.RawMessage, summary string) ([]json.RawMessage, error) {
	b, err := marshal(wireText{Role: "user", Content: summary})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, c := range chunks {
		if c.Kind == KindSystem {
			n++
			continue
		}
		break
	}
	if n > len(out) {
		n = len(out)
	}
	res := make([]json.RawMessage, 0, len(out)+1)
	res = append(res, out[:n]...)
	res = append(res, b)
	return append(res, out[n:]...), nil
}

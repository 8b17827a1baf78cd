package store

import (
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/provider"
)

// Messages derives the OpenAI Chat Completions messages of a session's rows in the portable
// form (provider.EncodeOpenAI of Turns for no origin): what any OpenAI-compatible server
// accepts. Requests go through Turns and the provider's adapter instead, which send each turn
// back raw to the model that made it.
func Messages(chunks []Chunk) ([]json.RawMessage, error) {
	turns, err := Turns(chunks)
	if err != nil {
		return nil, err
	}
	return provider.EncodeOpenAI(turns, provider.Origin{})
}

// Turns derives the conversation sent to the model from a session's rows (in seq order). It
// is the only place that does so: replaying the same rows always yields the same messages,
// and rows appended later only add messages at the end, so provider prompt caches keep
// hitting.
//
//   - user -> a user message with its text.
//   - assistant -> an assistant message: text and tool calls (arguments exactly as the model
//     produced them), the raw message and its origin, which the adapter sends back unmodified
//     to the same provider and model. Reasoning stays in the row for the page and exports;
//     where a provider needs it back it is in the raw message.
//   - tool_result -> a tool message (call id, tool name, content, is_error).
//   - approval, usage, hook, image_excluded -> nothing: a denial reaches the model through the
//     tool result; an image left out is named in its user message instead (ExcludedNote).
//   - restore, note -> a user message framed as Loopdesk's note (NoteText).
//   - system -> a system message.
//   - summary -> the last summary row replaces every earlier row with seq <= ThroughSeq by one
//     user message carrying its framed text, placed where the first replaced row was. System
//     rows are kept: they are instructions, not conversation to condense. Earlier summaries
//     are superseded by the last one; a set-aside replaces its range where it started.
func Turns(chunks []Chunk) ([]provider.Message, error) {
	f, err := FoldsOf(chunks)
	if err != nil {
		return nil, err
	}
	ex, err := ExclusionsOf(chunks)
	if err != nil {
		return nil, err
	}
	through, summary := f.Compaction.ThroughSeq, f.Compaction.Framed()
	out := make([]provider.Message, 0, len(chunks))
	summarized := false
	asideDone := make([]bool, len(f.SetAside))
	user := func(text string) { out = append(out, provider.Message{Role: provider.RoleUser, Text: text}) }
	for _, c := range chunks {
		var err error
		switch c.Kind {
		case KindSystem:
			var p SystemPayload
			if err = json.Unmarshal(c.Payload, &p); err == nil {
				out = append(out, provider.Message{Role: provider.RoleSystem, Text: p.Text})
			}
		case KindSummary:
			// Folded in below at the position of the first replaced row.
		case KindApproval, KindUsage, KindHook, KindImageExcluded:
		default:
			if c.Seq <= through {
				if !summarized {
					summarized = true
					user(summary)
				}
				break
			}
			if i := f.asideIndex(c.Seq); i >= 0 {
				if !asideDone[i] {
					asideDone[i] = true
					user(f.SetAside[i].Framed())
				}
				break
			}
			var m provider.Message
			if m, err = turn(c, ex); err == nil {
				out = append(out, m)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("messages: row %d (%s): %w", c.Seq, c.Kind, err)
		}
	}
	if f.Compaction.Seq > 0 && !summarized {
		// Only system rows (or none) before ThroughSeq: the summary still has to reach the
		// model; it goes right after those system messages.
		n := 0
		for n < len(out) && out[n].Role == provider.RoleSystem {
			n++
		}
		out = append(out[:n], append([]provider.Message{{Role: provider.RoleUser, Text: summary}}, out[n:]...)...)
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

// turn is the message of one user, assistant, tool_result, restore or note row; ex are the
// session's image exclusions (a user row's excluded images are not sent, and its text says so).
func turn(c Chunk, ex Exclusions) (provider.Message, error) {
	switch c.Kind {
	case KindUser:
		var p UserPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return provider.Message{}, err
		}
		ex.Apply(c.Seq, &p)
		m := provider.Message{Role: provider.RoleUser, Text: p.Text + ExcludedNote(p)}
		for _, im := range p.Images {
			if !im.Excluded {
				m.ImageRefs = append(m.ImageRefs, im.Hash)
			}
		}
		return m, nil
	case KindAssistant:
		var p AssistantPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return provider.Message{}, err
		}
		m := provider.Message{Role: provider.RoleAssistant, Text: p.Text, Raw: p.Raw}
		if p.Origin != nil {
			m.Origin = provider.Origin{Provider: p.Origin.Provider, Kind: p.Origin.Kind, Model: p.Origin.Model}
		}
		for _, tc := range p.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, provider.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		return m, nil
	case KindToolResult:
		var p ToolResultPayload
		if err := json.Unmarshal(c.Payload, &p); err != nil {
			return provider.Message{}, err
		}
		return provider.Message{Role: provider.RoleTool, CallID: p.CallID, ToolName: p.Name, Text: p.Content, IsError: p.IsError}, nil
	case KindRestore, KindNote:
		text, err := NoteText(c)
		if err != nil {
			return provider.Message{}, err
		}
		return provider.Message{Role: provider.RoleUser, Text: text}, nil
	}
	return provider.Message{}, fmt.Errorf("unknown kind %q", c.Kind)
}

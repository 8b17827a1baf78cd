package store

import (
	"fmt"

	"github.com/loopdesk/loopdesk/backend/instructions"
	"github.com/loopdesk/loopdesk/backend/loop/core"
)

// The one boundary between the store's rows and the loop core's: what the core knows of stored
// rows (RowRefs, SentImagesOf), the payload each of its rows is stored as (PayloadOf), and the
// queued message on both sides.

// RowRefs is what the core knows of stored rows: seq, kind and size, and on each summary in
// effect among them (FoldsOf: not undone, not superseded) the rows it replaces or sets aside.
func RowRefs(chunks []Chunk) ([]core.RowRef, error) {
	f, err := FoldsOf(chunks)
	if err != nil {
		return nil, err
	}
	inEffect := make(map[int64]Fold, 1+len(f.SetAside))
	if f.Compaction.Seq != 0 {
		inEffect[f.Compaction.Seq] = f.Compaction
	}
	for _, a := range f.SetAside {
		inEffect[a.Seq] = a
	}
	refs := make([]core.RowRef, len(chunks))
	for i, c := range chunks {
		refs[i] = core.RowRef{Seq: c.Seq, Kind: core.RowKind(c.Kind), Tokens: core.EstimateMessageLen(len(c.Payload))}
		if c.Kind != KindSummary {
			continue
		}
		if fold, ok := inEffect[c.Seq]; ok {
			refs[i].ThroughSeq, refs[i].FromSeq = fold.ThroughSeq, fold.FromSeq
		}
	}
	return refs, nil
}

// SentImagesOf are the images a request built from rows carried (SentImages), as the core
// takes them with an image refusal.
func SentImagesOf(rows []Chunk) ([]core.SentImage, error) {
	sent, err := SentImages(rows)
	out := make([]core.SentImage, len(sent))
	for i, im := range sent {
		out[i] = core.SentImage{Seq: im.Seq, Hash: im.Hash}
	}
	return out, err
}

// Core is the queued message as the core holds it.
func (m QueuedMessage) Core() core.QueuedMessage {
	return core.QueuedMessage{ID: m.ID, Text: m.Text, QueuedAt: m.QueuedAt}
}

// QueuedOf is the core's queued message as the store keeps it.
func QueuedOf(m core.QueuedMessage) QueuedMessage {
	return QueuedMessage{ID: m.ID, Text: m.Text, QueuedAt: m.QueuedAt}
}

// CoreQueue is the stored queue as the core sees it, without the message skip ("" for none).
func CoreQueue(stored []QueuedMessage, skip string) []core.QueuedMessage {
	out := []core.QueuedMessage{}
	for _, m := range stored {
		if m.ID != skip {
			out = append(out, m.Core())
		}
	}
	return out
}

// PayloadOf is the stored payload of a core row, of the same kind.
func PayloadOf(row core.Row) any {
	switch r := row.(type) {
	case core.UserRow:
		return UserPayload{Text: r.Text, QueuedID: r.QueuedID, Images: r.Images, Command: r.Command}
	case core.AssistantRow:
		calls := make([]ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			calls[i] = ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		p := AssistantPayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: calls, Raw: r.Raw,
			Usage: usageOf(r.Usage), Stopped: r.Stopped}
		if r.Origin != (core.Origin{}) {
			p.Origin = &r.Origin
		}
		return p
	case core.ToolResultRow:
		return ToolResultPayload{CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError, Sandboxed: r.Sandboxed}
	case core.ApprovalRow:
		return ApprovalPayload{CallID: r.CallID, Tool: r.Tool, Decision: r.Decision, By: r.By, Reason: r.Reason, Rule: r.Rule,
			Arguments: r.Arguments, Reviewed: r.Reviewed, RequestedAt: r.RequestedAt}
	case core.SummaryRow:
		p := SummaryPayload{Text: r.Text, ThroughSeq: r.ThroughSeq, FromSeq: r.FromSeq}
		if r.Usage != nil {
			p.Usage = usageOf(*r.Usage)
		}
		return p
	case core.UsageRow:
		return UsagePayload{Usage: *usageOf(r.Usage), Reason: r.Reason}
	case core.NoteRow:
		return NotePayload{Source: r.Source, Text: r.Text}
	case core.ImageExcludedRow:
		ims := make([]ExcludedImage, len(r.Images))
		for i, im := range r.Images {
			ims[i] = ExcludedImage{Seq: im.Seq, Hash: im.Hash}
		}
		return ImageExcludedPayload{Images: ims, Reason: r.Reason, Provider: r.Provider, Model: r.Model}
	}
	panic(fmt.Sprintf("store: row type %T has no payload", row)) // the core's Row set is closed
}

func usageOf(u core.RowUsage) *Usage {
	return &Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens, CostUSD: u.CostUSD, Unreported: u.Unreported}
}

// InstructionsOf is what a run row keeps of the instruction files its system prompt read.
func InstructionsOf(files []instructions.File) []Instruction {
	out := make([]Instruction, len(files))
	for i, f := range files {
		out[i] = Instruction{Path: f.Path, SHA256: f.SHA256, Bytes: f.Bytes, Truncated: f.Truncated}
	}
	return out
}

package loop

import (
	"fmt"
	"strings"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// The runner's one boundary between the core's types and the types of the packages it drives
// (tools, store, provider). Every conversion between the two sides is here; the rest of the
// runner speaks the core's types to the core and the other packages' types to them.

// toolCalls converts calls the core asks about or runs to the tools' type (the same fields).
func toolCalls(calls []core.Call) []Call {
	out := make([]Call, len(calls))
	for i, c := range calls {
		out[i] = Call(c)
	}
	return out
}

// coreImages converts a prompt's stored images for its user row.
func coreImages(refs []ImageRef) []core.ImageRef {
	if refs == nil {
		return nil
	}
	out := make([]core.ImageRef, len(refs))
	for i, r := range refs {
		out[i] = core.ImageRef(r)
	}
	return out
}

// storeImages is coreImages' inverse, for the user row's payload.
func storeImages(refs []core.ImageRef) []ImageRef {
	if refs == nil {
		return nil
	}
	out := make([]ImageRef, len(refs))
	for i, r := range refs {
		out[i] = ImageRef(r)
	}
	return out
}

// rowRefs is what the core knows of stored rows: seq, kind and size, and on each summary in
// effect among them (store.FoldsOf: not undone, not superseded) the rows it replaces or sets
// aside.
func rowRefs(chunks []store.Chunk) ([]core.RowRef, error) {
	f, err := store.FoldsOf(chunks)
	if err != nil {
		return nil, err
	}
	inEffect := make(map[int64]store.Fold, 1+len(f.SetAside))
	if f.Compaction.Seq != 0 {
		inEffect[f.Compaction.Seq] = f.Compaction
	}
	for _, a := range f.SetAside {
		inEffect[a.Seq] = a
	}
	refs := make([]core.RowRef, len(chunks))
	for i, c := range chunks {
		refs[i] = core.RowRef{Seq: c.Seq, Kind: core.RowKind(c.Kind), Tokens: core.EstimateMessageLen(len(c.Payload))}
		if c.Kind != store.KindSummary {
			continue
		}
		if fold, ok := inEffect[c.Seq]; ok {
			refs[i].ThroughSeq, refs[i].FromSeq = fold.ThroughSeq, fold.FromSeq
		}
	}
	return refs, nil
}

// queuedOf and storeQueued convert a queued message between the store's durable queue and
// the core's.
func queuedOf(m store.QueuedMessage) core.QueuedMessage {
	return core.QueuedMessage{ID: m.ID, Text: m.Text, QueuedAt: m.QueuedAt}
}

func storeQueued(m core.QueuedMessage) store.QueuedMessage {
	return store.QueuedMessage{ID: m.ID, Text: m.Text, QueuedAt: m.QueuedAt}
}

// toolBatches converts the batches of a RunTools.
func toolBatches(batches [][]core.Call) [][]Call {
	out := make([][]Call, len(batches))
	for i, b := range batches {
		out[i] = toolCalls(b)
	}
	return out
}

// toolInfos is what the core knows of the run's tools, in the order of specs: their names,
// read-only flags and kinds (the task tool, the plan tool, the tools narrowed away).
func toolInfos(specs []tools.Spec, infos map[string]core.ToolInfo) []core.ToolInfo {
	out := make([]core.ToolInfo, len(specs))
	for i, s := range specs {
		out[i] = infos[s.Name]
	}
	return out
}

// sentImages are the images a request built from rows carried (store.SentImages), as the
// core takes them with an image refusal.
func sentImages(rows []store.Chunk) ([]core.SentImage, error) {
	sent, err := store.SentImages(rows)
	out := make([]core.SentImage, len(sent))
	for i, im := range sent {
		out[i] = core.SentImage{Seq: im.Seq, Hash: im.Hash}
	}
	return out, err
}

// recordedRow is a row an extension recorded (RunInfo.Record), stored as it was made.
type recordedRow struct{ store.NewChunk }

// Kind implements Row.
func (r recordedRow) Kind() core.RowKind { return core.RowKind(r.NewChunk.Kind) }

// commandRow is the prompt of a run started from a slash command: a user row that also
// records the command it was expanded from.
type commandRow struct {
	core.UserRow
	Command string
}

// storePayload converts a core row to the store's payload type of the same kind.
func storePayload(row core.Row) any {
	switch r := row.(type) {
	case core.UserRow:
		return store.UserPayload{Text: r.Text, QueuedID: r.QueuedID, Images: storeImages(r.Images)}
	case recordedRow:
		return r.Payload
	case commandRow:
		return store.UserPayload{Text: r.Text, QueuedID: r.QueuedID, Command: r.Command, Images: storeImages(r.Images)}
	case core.AssistantRow:
		calls := make([]store.ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			calls[i] = store.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		}
		return store.AssistantPayload{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: calls, Raw: r.Raw,
			Origin: storeOrigin(r.Origin), Usage: storeUsage(r.Usage), Stopped: r.Stopped}
	case core.ToolResultRow:
		return store.ToolResultPayload{CallID: r.CallID, Name: r.Name, Content: r.Content, IsError: r.IsError, Sandboxed: r.Sandboxed}
	case core.ApprovalRow:
		return store.ApprovalPayload{CallID: r.CallID, Tool: r.Tool, Decision: r.Decision, By: r.By, Reason: r.Reason, Rule: r.Rule,
			Arguments: r.Arguments, Reviewed: r.Reviewed}
	case core.SummaryRow:
		p := store.SummaryPayload{Text: r.Text, ThroughSeq: r.ThroughSeq, FromSeq: r.FromSeq}
		if r.Usage != nil {
			p.Usage = storeUsage(*r.Usage)
		}
		return p
	case core.UsageRow:
		return store.UsagePayload{Usage: *storeUsage(r.Usage), Reason: r.Reason}
	case core.NoteRow:
		return store.NotePayload{Source: r.Source, Text: r.Text}
	case core.ImageExcludedRow:
		ims := make([]store.ExcludedImage, len(r.Images))
		for i, im := range r.Images {
			ims[i] = store.ExcludedImage{Seq: im.Seq, Hash: im.Hash}
		}
		return store.ImageExcludedPayload{Images: ims, Reason: r.Reason, Provider: r.Provider, Model: r.Model}
	}
	panic(fmt.Sprintf("loop: row type %T has no store payload", row)) // the Row set is closed
}

func storeUsage(u core.RowUsage) *store.Usage {
	return &store.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens, CostUSD: u.CostUSD, Unreported: u.Unreported}
}

func storeOrigin(o core.Origin) *store.Origin {
	if o == (core.Origin{}) {
		return nil
	}
	return &store.Origin{Provider: o.Provider, Kind: o.Kind, Model: o.Model}
}

// fromProvider converts a provider response, every call included (the core drops invalid
// calls it cannot answer and answers the others with an error).
func fromProvider(resp provider.Response, origin core.Origin) core.ModelResponse {
	out := core.ModelResponse{Text: resp.Text, Reasoning: resp.Reasoning, Status: core.ResponseStatus(resp.Status),
		Usage: usageOf(resp.Usage), Raw: resp.Raw, Origin: origin}
	if resp.Origin.Kind != "" {
		// The client names what answered (its configured name, wire kind and the model).
		out.Origin = core.Origin{Provider: resp.Origin.Provider, Kind: resp.Origin.Kind, Model: resp.Origin.Model}
		if out.Origin.Provider == "" {
			out.Origin.Provider = origin.Provider
		}
	}
	if resp.Err != nil {
		out.Err = resp.Err.Error()
	}
	if out.Status == "" {
		out.Status = core.ResponseProviderError
	}
	if provider.ContextExceeded(resp.Err) {
		out.Status = core.ResponseContextExceeded
	}
	if provider.ImageRejected(resp.Err) {
		out.Status, out.AllImagesRefused = core.ResponseImageRefused, provider.RefusesAllImages(resp.Err)
	}
	for _, c := range resp.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, core.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	for _, c := range resp.InvalidToolCalls {
		out.InvalidToolCalls = append(out.InvalidToolCalls, core.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return out
}

// usageOf converts the provider's usage report (the one conversion between the two types).
func usageOf(u provider.Usage) core.Usage {
	return core.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CacheReadTokens: u.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens, ReasoningTokens: u.ReasoningTokens,
		Unreported: u.InputTokens == 0 && u.OutputTokens == 0}
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

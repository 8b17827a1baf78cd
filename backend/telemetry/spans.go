// Package telemetry sends Loopdesk's runs to an OpenTelemetry collector over OTLP, in the shape
// of the GenAI semantic conventions: each run an invoke_agent span, each model request a chat
// span, each tool call an execute_tool span. Spans are built from the journal (the stored rows),
// never from the runner's memory, and their ids are derived from the session, run and row: so a
// run sent live and sent again by `loopdesk otel export` has the same ids, and a collector
// de-duplicates it.
package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Attribute names of Loopdesk's own (the gen_ai.* ones are the semantic conventions').
const (
	AttrRunID            = "loopdesk.run.id"
	AttrCost             = "loopdesk.cost_usd"
	AttrApprovalDecision = "loopdesk.approval.decision"
	AttrApprovalBy       = "loopdesk.approval.by"
	AttrSandboxed        = "loopdesk.sandboxed"
	AttrSandbox          = "loopdesk.sandbox"
)

// scope names the instrumentation on every span and metric.
var scope = instrumentation.Scope{Name: "github.com/loopdesk/loopdesk/backend/telemetry"}

// Journal is what spans are built from: the store's sessions, runs and rows.
type Journal interface {
	GetSession(ctx context.Context, id string) (store.Session, error)
	ListRuns(ctx context.Context, sessionID string) ([]store.Run, error)
	Chunks(ctx context.Context, sessionID string) ([]store.Chunk, error)
}

// Builder turns a session's runs into spans.
type Builder struct {
	Journal  Journal
	Resource *resource.Resource
	// Contents puts messages, tool arguments and results on the spans (the person's choice:
	// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true or Settings → Telemetry).
	Contents bool
}

// TraceID is the trace of a session: its root's (a task's child session is in its parent's
// trace, under the task call).
func TraceID(rootSessionID string) trace.TraceID {
	var id trace.TraceID
	copy(id[:], derive("trace", rootSessionID))
	return id
}

// SpanID derives a span's id from what names it: ("run", session, run id), ("chat", session,
// seq), ("tool", session, call id).
func SpanID(kind string, parts ...string) trace.SpanID {
	var id trace.SpanID
	copy(id[:], derive(kind, parts...))
	return id
}

func derive(kind string, parts ...string) []byte {
	h := sha256.New()
	h.Write([]byte("loopdesk/" + kind))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum(nil)
}

// where a session's spans hang: its trace, and for a child session the task call it runs under.
type placement struct {
	trace  trace.TraceID
	parent trace.SpanContext // invalid for a top-level session
}

func (b Builder) place(ctx context.Context, s store.Session) (placement, error) {
	if s.ParentCallID == "" {
		return placement{trace: TraceID(s.ID)}, nil
	}
	root := s
	for root.ParentCallID != "" {
		p, err := b.Journal.GetSession(ctx, root.ParentID)
		if err != nil {
			return placement{}, fmt.Errorf("parent of session %s: %w", root.ID, err)
		}
		root = p
	}
	tid := TraceID(root.ID)
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: SpanID("tool", s.ParentID, s.ParentCallID),
		TraceFlags: trace.FlagsSampled})
	return placement{trace: tid, parent: parent}, nil
}

// Session builds the spans of the session's finished runs that keep returns true for (nil:
// all of them). A run still going is left out: it is sent when it ends.
func (b Builder) Session(ctx context.Context, sessionID string, keep func(store.Run) bool) ([]sdktrace.ReadOnlySpan, error) {
	s, err := b.Journal.GetSession(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	runs, err := b.Journal.ListRuns(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var chosen []store.Run
	for _, r := range runs {
		if r.Status != store.RunRunning && (keep == nil || keep(r)) {
			chosen = append(chosen, r)
		}
	}
	if len(chosen) == 0 {
		return nil, nil
	}
	at, err := b.place(ctx, s)
	if err != nil {
		return nil, err
	}
	rows, err := b.Journal.Chunks(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	byRun := map[string][]store.Chunk{}
	for _, r := range rows {
		byRun[r.RunID] = append(byRun[r.RunID], r)
	}
	var out []sdktrace.ReadOnlySpan
	for _, r := range chosen {
		out = append(out, b.run(at, r, byRun[r.ID])...)
	}
	return out, nil
}

// run builds one run's spans: invoke_agent, then a chat span per model call and an
// execute_tool span per tool call, both under it.
func (b Builder) run(at placement, r store.Run, rows []store.Chunk) []sdktrace.ReadOnlySpan {
	runSC := b.sc(at.trace, SpanID("run", r.SessionID, r.ID))
	end := r.EndedAt
	if end.IsZero() {
		end = r.StartedAt
	}
	common := []attribute.KeyValue{attribute.String(AttrRunID, r.ID), attribute.String("gen_ai.conversation.id", r.SessionID)}
	attrs := append(append([]attribute.KeyValue{}, common...),
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.agent.name", "loopdesk"),
		attribute.String("gen_ai.provider.name", r.Provider),
		attribute.String("gen_ai.request.model", r.Model),
		attribute.String("loopdesk.run.status", string(r.Status)),
		attribute.String("loopdesk.run.mode", string(r.Mode)),
		attribute.Int64("gen_ai.usage.input_tokens", r.InputTokens),
		attribute.Int64("gen_ai.usage.output_tokens", r.OutputTokens),
		attribute.Float64(AttrCost, r.CostUSD),
	)
	if r.Sandbox != "" {
		attrs = append(attrs, attribute.String(AttrSandbox, r.Sandbox))
	}
	status := sdktrace.Status{Code: codes.Ok}
	if r.Error != "" {
		status = sdktrace.Status{Code: codes.Error, Description: r.Error}
	}
	out := []sdktrace.ReadOnlySpan{b.span(tracetest.SpanStub{Name: "invoke_agent loopdesk", SpanContext: runSC, Parent: at.parent,
		SpanKind: trace.SpanKindInternal, StartTime: r.StartedAt, EndTime: end, Attributes: attrs, Status: status})}

	j := runJournal{run: r, rows: rows}
	j.index()
	prev := r.StartedAt
	var pending []store.Chunk // rows since the last model call: the next call's new input
	for _, row := range rows {
		p, ok := store.NewPayload(row.Kind)
		if !ok || json.Unmarshal(row.Payload, p) != nil {
			continue
		}
		switch v := p.(type) {
		case *store.AssistantPayload:
			out = append(out, b.chat(runSC, common, r, row, prev, v.Usage, v.Origin, finish(v), pending, v))
			for _, c := range v.ToolCalls {
				out = append(out, b.tool(runSC, common, r, row, c, j))
			}
			pending = nil
		case *store.UsagePayload:
			out = append(out, b.chat(runSC, common, r, row, prev, &v.Usage, nil, []string{"error"}, pending, nil))
			pending = nil
		case *store.SummaryPayload:
			if v.Usage != nil {
				out = append(out, b.chat(runSC, common, r, row, prev, v.Usage, nil, []string{"stop"}, nil, nil))
			}
		default:
			pending = append(pending, row)
		}
		prev = row.CreatedAt
	}
	return out
}

func (b Builder) sc(tid trace.TraceID, sid trace.SpanID) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
}

func (b Builder) span(s tracetest.SpanStub) sdktrace.ReadOnlySpan {
	s.Resource, s.InstrumentationScope = b.Resource, scope
	return s.Snapshot()
}

func finish(a *store.AssistantPayload) []string {
	switch {
	case a.Stopped:
		return []string{"cancelled"}
	case len(a.ToolCalls) > 0:
		return []string{"tool_calls"}
	}
	return []string{"stop"}
}

// chat is one model call's span, from the row before it (or the run's start) to its row.
func (b Builder) chat(parent trace.SpanContext, common []attribute.KeyValue, r store.Run, row store.Chunk, start time.Time,
	u *store.Usage, origin *store.Origin, reasons []string, input []store.Chunk, out *store.AssistantPayload) sdktrace.ReadOnlySpan {
	provider, model := r.Provider, r.Model
	attrs := append(append([]attribute.KeyValue{}, common...), attribute.String("gen_ai.operation.name", "chat"),
		attribute.StringSlice("gen_ai.response.finish_reasons", reasons), attribute.Int64("loopdesk.row.seq", row.Seq))
	if origin != nil {
		provider = origin.Provider
		attrs = append(attrs, attribute.String("gen_ai.response.model", origin.Model))
	}
	attrs = append(attrs, attribute.String("gen_ai.provider.name", provider), attribute.String("gen_ai.request.model", model))
	if u != nil {
		attrs = append(attrs, attribute.Int64("gen_ai.usage.input_tokens", u.InputTokens),
			attribute.Int64("gen_ai.usage.output_tokens", u.OutputTokens),
			attribute.Int64("gen_ai.usage.cache_read.input_tokens", u.CacheReadTokens),
			attribute.Int64("gen_ai.usage.cache_creation.input_tokens", u.CacheWriteTokens),
			attribute.Float64(AttrCost, u.CostUSD))
	}
	if b.Contents {
		attrs = append(attrs, attribute.String("gen_ai.input.messages", inputMessages(input)))
		if out != nil {
			attrs = append(attrs, attribute.String("gen_ai.output.messages", outputMessages(out)))
		}
	}
	status := sdktrace.Status{Code: codes.Ok}
	if reasons[0] == "error" {
		status = sdktrace.Status{Code: codes.Error, Description: "the model call failed"}
	}
	if start.After(row.CreatedAt) {
		start = row.CreatedAt
	}
	name := "chat " + model
	return b.span(tracetest.SpanStub{Name: strings.TrimSpace(name), SpanContext: b.sc(parent.TraceID(), SpanID("chat", r.SessionID, strconv.FormatInt(row.Seq, 10))),
		Parent: parent, SpanKind: trace.SpanKindClient, StartTime: start, EndTime: row.CreatedAt, Attributes: attrs, Status: status})
}

// runJournal indexes a run's approvals and results by call id.
type runJournal struct {
	run       store.Run
	rows      []store.Chunk
	approvals map[string]store.ApprovalPayload
	results   map[string]resultRow
}

type resultRow struct {
	store.ToolResultPayload
	at time.Time
}

func (j *runJournal) index() {
	j.approvals, j.results = map[string]store.ApprovalPayload{}, map[string]resultRow{}
	for _, row := range j.rows {
		switch row.Kind {
		case store.KindApproval:
			var a store.ApprovalPayload
			if json.Unmarshal(row.Payload, &a) == nil {
				j.approvals[a.CallID] = a
			}
		case store.KindToolResult:
			var t store.ToolResultPayload
			if json.Unmarshal(row.Payload, &t) == nil {
				j.results[t.CallID] = resultRow{t, row.CreatedAt}
			}
		}
	}
}

var exitCode = regexp.MustCompile(`\[exit code (-?\d+)\]\s*$`)

// tool is one tool call's span, from the turn that asked for it to its result.
func (b Builder) tool(parent trace.SpanContext, common []attribute.KeyValue, r store.Run, row store.Chunk, c store.ToolCall, j runJournal) sdktrace.ReadOnlySpan {
	attrs := append(append([]attribute.KeyValue{}, common...), attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", c.Name), attribute.String("gen_ai.tool.call.id", c.ID),
		attribute.String("gen_ai.tool.type", "function"))
	if a, ok := j.approvals[c.ID]; ok {
		attrs = append(attrs, attribute.String(AttrApprovalDecision, string(a.Decision)), attribute.String(AttrApprovalBy, a.By))
	}
	end := r.EndedAt
	status := sdktrace.Status{Code: codes.Unset, Description: ""}
	if res, ok := j.results[c.ID]; ok {
		end = res.at
		attrs = append(attrs, attribute.Bool(AttrSandboxed, res.Sandboxed))
		if res.Sandboxed && r.Sandbox != "" {
			attrs = append(attrs, attribute.String(AttrSandbox, r.Sandbox))
		}
		if m := exitCode.FindStringSubmatch(res.Content); m != nil {
			n, _ := strconv.Atoi(m[1])
			attrs = append(attrs, attribute.Int("process.exit.code", n))
		}
		status = sdktrace.Status{Code: codes.Ok}
		if res.IsError {
			status = sdktrace.Status{Code: codes.Error, Description: "the tool call failed or was refused"}
			attrs = append(attrs, attribute.String("error.type", "tool_error"))
		}
		if b.Contents {
			attrs = append(attrs, attribute.String("gen_ai.tool.call.result", res.Content))
		}
	}
	if b.Contents {
		args := c.Arguments
		if a, ok := j.approvals[c.ID]; ok && a.Arguments != "" {
			args = a.Arguments // what the person edited the call to: what ran
		}
		attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", args))
	}
	if end.IsZero() || end.Before(row.CreatedAt) {
		end = row.CreatedAt
	}
	return b.span(tracetest.SpanStub{Name: "execute_tool " + c.Name, SpanContext: b.sc(parent.TraceID(), SpanID("tool", r.SessionID, c.ID)),
		Parent: parent, SpanKind: trace.SpanKindInternal, StartTime: row.CreatedAt, EndTime: end, Attributes: attrs, Status: status})
}

// message is a message as gen_ai.input.messages / gen_ai.output.messages carry it.
type message struct {
	Role  string `json:"role"`
	Parts []part `json:"parts"`
}

type part struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Response  string `json:"response,omitempty"`
}

func encode(ms []message) string {
	raw, _ := json.Marshal(ms) // strings only: always marshals
	return string(raw)
}

// inputMessages are the rows a model call was the first to see: the person's message, tool
// results, Loopdesk's notes (the history before them went on earlier chat spans).
func inputMessages(rows []store.Chunk) string {
	ms := []message{}
	for _, row := range rows {
		switch row.Kind {
		case store.KindUser:
			var u store.UserPayload
			if json.Unmarshal(row.Payload, &u) == nil {
				ms = append(ms, message{Role: "user", Parts: []part{{Type: "text", Content: u.Text}}})
			}
		case store.KindToolResult:
			var t store.ToolResultPayload
			if json.Unmarshal(row.Payload, &t) == nil {
				ms = append(ms, message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: t.CallID, Response: t.Content}}})
			}
		case store.KindNote:
			var n store.NotePayload
			if json.Unmarshal(row.Payload, &n) == nil {
				ms = append(ms, message{Role: "user", Parts: []part{{Type: "text", Content: n.Text}}})
			}
		}
	}
	return encode(ms)
}

func outputMessages(a *store.AssistantPayload) string {
	m := message{Role: "assistant", Parts: []part{}}
	if a.Reasoning != "" {
		m.Parts = append(m.Parts, part{Type: "reasoning", Content: a.Reasoning})
	}
	if a.Text != "" {
		m.Parts = append(m.Parts, part{Type: "text", Content: a.Text})
	}
	for _, c := range a.ToolCalls {
		m.Parts = append(m.Parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	return encode([]message{m})
}

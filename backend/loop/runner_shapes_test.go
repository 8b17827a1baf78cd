package loop_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

func sse(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// Tool turns shaped like real servers' streams run their tools, and the id the server chose
// is the one the result answers.
func TestServerShapesRunTools(t *testing.T) {
	const args = `"{\"path\":\".\"}"`
	for _, tc := range []struct {
		name, id, raw string
	}{
		{"ollama: whole arguments in one delta, finish stop", "call_olla",
			sse(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_olla","index":0,"type":"function","function":{"name":"list_dir","arguments":`+args+`}}]},"finish_reason":null}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}`)},
		{"mistral: 9-character id, no index", "aB3dE5gH7",
			sse(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"aB3dE5gH7","function":{"name":"list_dir","arguments":` + args + `}}]},"finish_reason":"tool_calls"}]}`)},
		{"proxy: tool index starts at 1, arguments split", "call_px",
			sse(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":1,"id":"call_px","type":"function","function":{"name":"list_dir","arguments":""}}]},"finish_reason":null}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"path\""}}]},"finish_reason":null}]}`,
				`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":":\".\"}"}}]},"finish_reason":"tool_calls"}]}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("seen.txt", "x")
			h.srv.Enqueue(fakeai.Raw(tc.raw), fakeai.Text("one file"))
			sid := h.session()
			res := h.run(loop.RunSpec{SessionID: sid, Prompt: "list"})
			if res.Status != core.StopCompleted || res.ToolCalls != 1 {
				t.Fatalf("result %+v", res)
			}
			var got store.ToolResultPayload
			for _, c := range h.rows(sid) {
				if c.Kind == store.KindToolResult {
					_ = json.Unmarshal(c.Payload, &got)
				}
			}
			if got.CallID != tc.id || got.IsError || !strings.Contains(got.Content, "seen.txt") {
				t.Errorf("result row %+v", got)
			}
			h.checkPairing()
		})
	}
}

func TestWallClockTimeoutStopsAStalledModel(t *testing.T) {
	h := newHarness(t)
	h.srv.Enqueue(fakeai.Stall(time.Minute))
	res := h.run(loop.RunSpec{Prompt: "hello?", Limits: core.Limits{Timeout: 200 * time.Millisecond}})
	if res.Status != core.StopTimeout || !res.Status.IsBound() {
		t.Fatalf("status %s (%s)", res.Status, res.Error)
	}
}

// failingStore fails every Append after the first n.
type failingStore struct {
	*store.DB
	n atomic.Int32
}

func (f *failingStore) Append(ctx context.Context, sid, rid string, cs ...store.NewChunk) ([]store.Chunk, error) {
	if f.n.Add(-1) < 0 {
		return nil, errors.New("disk full")
	}
	return f.DB.Append(ctx, sid, rid, cs...)
}

// A write that fails ends the run as "error", and the session is still valid: FinishRun
// answers the call whose result could not be written.
func TestStoreFailureEndsRunAsError(t *testing.T) {
	h := newHarness(t)
	fs := &failingStore{DB: h.db}
	fs.n.Store(1) // the assistant turn (the prompt goes with the run's row); the approval row with the result fails
	r := loop.New(loop.Config{Store: fs, Model: modelOf(h), Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf()})
	defer r.Close()
	h.srv.Enqueue(fakeai.ToolCalls(fakeai.Call{ID: "c1", Name: "list_dir", Arguments: `{}`}))
	sid := h.session()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "x", Model: "fake-model", Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait(context.Background(), id)
	if err != nil || res.Status != core.StopError || !strings.Contains(res.Error, "disk full") {
		t.Fatalf("result %+v %v", res, err)
	}
	rows, err := h.db.Chunks(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if ids := unanswered(t, rows); len(ids) != 0 {
		t.Errorf("calls left unanswered: %v", ids)
	}
	runs, _ := h.db.ListRuns(context.Background(), sid)
	if len(runs) != 1 || runs[0].Status != "error" {
		t.Errorf("run rows %+v", runs)
	}
}

// endFailingStore fails the transaction that stores a run's last rows with its end.
type endFailingStore struct{ *store.DB }

func (f endFailingStore) AppendAndFinish(ctx context.Context, sid, rid string, r store.RunResult, cs ...store.NewChunk) (store.Run, []store.Chunk, []store.Chunk, error) {
	if len(cs) > 0 {
		return store.Run{}, nil, nil, errors.New("disk full")
	}
	return f.DB.AppendAndFinish(ctx, sid, rid, r, cs...)
}

// When the answer cannot be stored with the run's end, the run still ends, as "error"
// saying so, and the answer the journal does not hold is never announced.
func TestLastRowsFailingEndTheRunAsError(t *testing.T) {
	h := newHarness(t)
	r := loop.New(loop.Config{Store: endFailingStore{h.db}, Model: modelOf(h), Approver: h.approver, Tools: toolsOf(t), Workspaces: wsOf()})
	defer r.Close()
	rec := record(t, r.Bus(), "")
	h.srv.Enqueue(fakeai.Text("an answer that is lost"))
	sid := h.session()
	id, err := r.Start(context.Background(), loop.RunSpec{SessionID: sid, Prompt: "x", Model: "fake-model", Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait(context.Background(), id)
	if err != nil || res.Status != core.StopError || !strings.Contains(res.Error, "last rows could not be stored: ") {
		t.Fatalf("result %+v %v", res, err)
	}
	runs, _ := h.db.ListRuns(context.Background(), sid)
	if len(runs) != 1 || runs[0].Status != "error" {
		t.Fatalf("run rows %+v", runs)
	}
	rec.waitFor(t, "run_finished", func(e bus.Event) bool { return e.Type == core.EventRunFinished })
	for _, e := range rec.all() {
		if e.Type == core.EventAssistantMessage {
			t.Fatalf("the lost answer was announced: %+v", e)
		}
	}
	if rows := h.rows(sid); len(rows) != 1 || rows[0].Kind != store.KindUser {
		t.Fatalf("rows %+v, want the prompt only", rows)
	}
}

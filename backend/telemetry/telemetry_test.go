package telemetry_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/telemetry"
)

// A run sent live reaches a real collector as the GenAI conventions name it, its numbers equal
// the session's totals, and sending it again from the journal gives the very same spans.
func TestRunReachesCollectorAndBackfillGivesSameIDs(t *testing.T) {
	for _, proto := range []string{telemetry.ProtocolHTTP, telemetry.ProtocolGRPC} {
		t.Run(strings.ReplaceAll(proto, "/", "_"), func(t *testing.T) {
			col := startCollector(t)
			endpoint := col.http
			if proto == telemetry.ProtocolGRPC {
				endpoint = col.grpc
			}
			cfg := telemetry.Config{Endpoint: endpoint, Protocol: proto}
			a := newAgent(t, &cfg)
			sid, _ := a.run("list the files")
			a.close() // sends what is queued and flushes the metrics
			live := col.spans()

			db := reopen(t, a)
			totals, err := db.SessionTotals(context.Background(), sid)
			if err != nil {
				t.Fatal(err)
			}
			runs := named(live, "invoke_agent")
			chats := named(live, "chat")
			calls := named(live, "execute_tool")
			if len(runs) != 1 || len(chats) != 2 || len(calls) != 1 || len(live) != 4 {
				t.Fatalf("spans: %d runs, %d chats, %d tool calls of %d; want 1, 2, 1 of 4", len(runs), len(chats), len(calls), len(live))
			}
			run := runs[0]
			if run.name != "invoke_agent loopdesk" || run.parent != "" || run.attrs["gen_ai.conversation.id"] != sid ||
				run.attrs["gen_ai.agent.name"] != "loopdesk" || run.attrs["loopdesk.run.status"] != "completed" {
				t.Errorf("invoke_agent span: %s parent %q %v", run.name, run.parent, run.attrs)
			}
			var in, out int64
			for _, s := range live {
				if s.trace != run.trace || s.attrs["loopdesk.run.id"] != run.attrs["loopdesk.run.id"] || s.attrs["loopdesk.run.id"] == "" {
					t.Errorf("span %s: trace %s run %v; want the run's trace %s and id %v", s.name, s.trace, s.attrs["loopdesk.run.id"],
						run.trace, run.attrs["loopdesk.run.id"])
				}
				if s.id != run.id && s.parent != run.id {
					t.Errorf("span %s under %s, not under the run %s", s.name, s.parent, run.id)
				}
				for k, v := range s.attrs {
					if str, ok := v.(string); ok && strings.Contains(str, apiKey) {
						t.Errorf("span %s attribute %s carries the API key", s.name, k)
					}
					if k == "gen_ai.input.messages" || k == "gen_ai.output.messages" || k == "gen_ai.tool.call.arguments" {
						t.Errorf("span %s carries %s though contents are off", s.name, k)
					}
				}
			}
			for _, c := range chats {
				in += c.attrs["gen_ai.usage.input_tokens"].(int64)
				out += c.attrs["gen_ai.usage.output_tokens"].(int64)
				if c.attrs["gen_ai.operation.name"] != "chat" || c.attrs["gen_ai.request.model"] != "m" {
					t.Errorf("chat span %v", c.attrs)
				}
			}
			if in != totals.InputTokens || out != totals.OutputTokens || in == 0 {
				t.Errorf("chat spans sum to %d in / %d out; sessions totals say %d / %d", in, out, totals.InputTokens, totals.OutputTokens)
			}
			if run.attrs["gen_ai.usage.input_tokens"] != totals.InputTokens {
				t.Errorf("invoke_agent input tokens %v, totals %d", run.attrs["gen_ai.usage.input_tokens"], totals.InputTokens)
			}
			call := calls[0]
			if call.name != "execute_tool run_shell_command" || call.attrs["gen_ai.tool.call.id"] != "sh1" ||
				call.attrs["process.exit.code"] != int64(3) || call.attrs["loopdesk.approval.decision"] != "approved" ||
				!strings.HasPrefix(call.attrs["loopdesk.approval.by"].(string), "mode:") {
				t.Errorf("execute_tool span: %s %v", call.name, call.attrs)
			}
			if got := col.tokenSum("input"); int64(got) != totals.InputTokens {
				t.Errorf("gen_ai.client.token.usage input sums to %v; totals say %d", got, totals.InputTokens)
			}

			// Backfill the same session: every span again, with the same ids, parents and times.
			sent, err := telemetry.Backfill(context.Background(), cfg, db, telemetry.BackfillOptions{Sessions: []string{sid}})
			if err != nil {
				t.Fatal(err)
			}
			all := col.spans()
			if sent.Spans != 4 || sent.Runs != 1 || len(all) != 8 {
				t.Fatalf("backfill sent %+v, collector holds %d spans; want 4 more of the same", sent, len(all))
			}
			ids, again := byID(live), byID(all[4:])
			if len(byID(all)) != len(live) {
				t.Errorf("de-duplicated by id the collector holds %d spans, want %d", len(byID(all)), len(live))
			}
			for id, s := range again {
				l, ok := ids[id]
				if !ok || l.parent != s.parent || l.trace != s.trace || !l.start.Equal(s.start) || !l.end.Equal(s.end) || l.name != s.name {
					t.Errorf("backfilled %s %s differs from the live one %+v", s.name, id, l)
				}
			}
		})
	}
}

// With contents on, the messages and the tool's arguments and result go on the spans.
func TestContentsOnlyWhenAsked(t *testing.T) {
	col := startCollector(t)
	a := newAgent(t, nil)
	sid, _ := a.run("say the secret word")
	a.close()
	db := reopen(t, a)
	cfg := telemetry.Config{Endpoint: col.http, Contents: true}
	if _, err := telemetry.Backfill(context.Background(), cfg, db, telemetry.BackfillOptions{Sessions: []string{sid}}); err != nil {
		t.Fatal(err)
	}
	spans := col.spans()
	first := named(spans, "chat")[0]
	if in, _ := first.attrs["gen_ai.input.messages"].(string); !strings.Contains(in, "say the secret word") {
		t.Errorf("first chat's input messages: %q", in)
	}
	call := named(spans, "execute_tool")[0]
	if call.attrs["gen_ai.tool.call.arguments"] != `{"command":"exit 3"}` || !strings.Contains(call.attrs["gen_ai.tool.call.result"].(string), "exit code 3") {
		t.Errorf("tool span contents: %v", call.attrs)
	}
}

// A collector that refuses, or accepts and never answers, costs a run nothing; what could not
// be sent is counted.
func TestCollectorDownDoesNotSlowARun(t *testing.T) {
	_, off := newAgent(t, nil).run("warm up") // the first run pays for the shell's first start
	_, off = newAgent(t, nil).run("off")

	refused := telemetry.Config{Endpoint: "http://" + freeAddr(t)} // nothing listens there
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hang.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	silent := telemetry.Config{Endpoint: "http://" + hang.Addr().String()} // the default timeout: Close must bound it
	for name, cfg := range map[string]telemetry.Config{"refused": refused, "silent": silent} {
		a := newAgent(t, &cfg)
		_, took := a.run(name)
		if took > off+2*time.Second {
			t.Errorf("%s collector: the run took %v, %v without telemetry", name, took, off)
		}
		began := time.Now()
		a.close()
		closing := time.Since(began)
		if closing > 5*time.Second {
			t.Errorf("%s collector: closing took %v", name, closing)
		}
		t.Logf("%s collector: run %v (without telemetry %v), close %v", name, took, off, closing)
		if st, _ := a.st.TelemetryStats(); st.Dropped == 0 || st.Exported != 0 || st.LastErr == "" {
			t.Errorf("%s collector: stats %+v; want the run's spans counted as dropped", name, st)
		}
	}
}

// A task's child session is in its parent's trace, its run under the task call that started it.
func TestChildRunHangsUnderItsTaskCall(t *testing.T) {
	col := startCollector(t)
	cfg := telemetry.Config{Endpoint: col.http}
	a := newAgent(t, &cfg)
	a.srv.EnqueueFor("[parent]", fakeai.ToolCalls(fakeai.Call{ID: "t1", Name: "task",
		Arguments: `{"description":"greet","prompt":"[child] say hi"}`}), fakeai.Text("parent done"))
	a.srv.EnqueueFor("[child]", fakeai.Text("hi"))
	sid, _ := a.runScripted("[parent] delegate")
	a.close()
	spans := col.spans()
	var parentRun, childRun, task span
	for _, s := range named(spans, "invoke_agent") {
		if s.attrs["gen_ai.conversation.id"] == sid {
			parentRun = s
		} else {
			childRun = s
		}
	}
	for _, s := range named(spans, "execute_tool task") {
		task = s
	}
	if parentRun.id == "" || childRun.id == "" || task.id == "" {
		t.Fatalf("spans: %+v", spans)
	}
	if task.parent != parentRun.id || childRun.parent != task.id || childRun.trace != parentRun.trace {
		t.Errorf("the child's run %s (trace %s) hangs under %s; want under the task call %s of trace %s", childRun.id, childRun.trace,
			childRun.parent, task.id, parentRun.trace)
	}
	for _, s := range spans {
		if s.trace != parentRun.trace {
			t.Errorf("span %s is in trace %s, not the session's %s", s.name, s.trace, parentRun.trace)
		}
	}
}

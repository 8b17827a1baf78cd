package cli

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
	"github.com/loopdesk/loopdesk/backend/store"
)

func rememberTurn(calls ...[3]string) fakeai.Reply {
	cs := make([]fakeai.Call, len(calls))
	for i, c := range calls {
		cs[i] = fakeai.Call{ID: c[0], Name: "remember", Arguments: `{"text":"` + c[1] + `","scope":"` + c[2] + `"}`}
	}
	return fakeai.ToolCalls(cs...)
}

func memoriesOf(t *testing.T, e *runEnv) []store.Memory {
	t.Helper()
	db, err := store.Open(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, _ := filepath.Abs(e.ws)
	ms, err := db.MemoriesFor(context.Background(), ws)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// On a terminal a remember call asks the person even in approval mode auto: the one they
// approve becomes a memory linked to the assistant row that proposed it, the one they refuse
// never does, and the model reads both answers.
func TestRunRememberAsksThePersonEvenInAuto(t *testing.T) {
	old := runIsTerminal
	runIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { runIsTerminal = old })
	e := runNewEnv(t)
	e.srv.Enqueue(rememberTurn([3]string{"c1", "make types after changing a bound Go type", "project"}),
		rememberTurn([3]string{"c2", "the person likes long answers", "personal"}), fakeai.Text("noted"))
	r := e.run(context.Background(), "y\nn\n", "--approve", "auto", "--sandbox", "off", "--json", "learn")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Count(r.stderr, "? allow remember") != 2 {
		t.Fatalf("the person was not asked about both calls:\n%s", r.stderr)
	}
	_, decided := approvalLines(t, r.stdout)
	if decided["c1"]["by"] != "person" || decided["c1"]["approved"] != true || decided["c2"]["approved"] != false {
		t.Fatalf("decisions: %v", decided)
	}
	ms := memoriesOf(t, e)
	if len(ms) != 1 || ms[0].Text != "make types after changing a bound Go type" || ms[0].Scope != store.MemoryProject || ms[0].Source == nil {
		t.Fatalf("memories: %+v", ms)
	}
	db, _ := store.Open(context.Background(), e.db)
	defer db.Close()
	rows, _ := db.Chunks(context.Background(), ms[0].Source.SessionID)
	var row store.Chunk
	for _, c := range rows {
		if c.Seq == ms[0].Source.Seq {
			row = c
		}
	}
	if row.Kind != store.KindAssistant || !strings.Contains(string(row.Payload), `"id":"c1"`) {
		t.Fatalf("the source row %d is not the call's: %s %s", ms[0].Source.Seq, row.Kind, row.Payload)
	}
	last := e.srv.Requests()[len(e.srv.Requests())-1].Body
	if !strings.Contains(string(last), "Remembered as a project memory") || !strings.Contains(string(last), "denied by person") {
		t.Fatalf("the model did not read both answers: %s", last)
	}
}

// Without a terminal (and no window to ask), nobody can approve a memory: the call is refused
// by mode:no-person, whatever the approval mode, and nothing is remembered.
func TestRunRememberWithNobodyToAskIsRefused(t *testing.T) {
	e := runNewEnv(t)
	e.srv.Enqueue(rememberTurn([3]string{"c1", "deploy with make release", "project"}), fakeai.Text("ok"))
	r := e.run(context.Background(), "", "--approve", "auto", "--sandbox", "off", "--json", "learn")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, decided := approvalLines(t, r.stdout)
	if decided["c1"]["by"] != "mode:no-person" || decided["c1"]["approved"] != false {
		t.Fatalf("decision: %v", decided["c1"])
	}
	if ms := memoriesOf(t, e); len(ms) != 0 {
		t.Fatalf("a memory nobody approved: %+v", ms)
	}
}

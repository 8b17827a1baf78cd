package hooks_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/hooks"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A hook's transcript holds what the model is sent (the summary of a compaction and the rows
// after it), not every row of the session: a long session's hooks do not wait for all its rows
// to be read and written out.
func TestTranscriptHoldsTheRowsSinceTheLastCompaction(t *testing.T) {
	f := newFixture(t)
	var rows []store.NewChunk
	for i := range 3000 {
		rows = append(rows, store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: fmt.Sprintf("old message %d", i)}})
	}
	rows = append(rows, store.NewChunk{Kind: store.KindSummary, Payload: store.SummaryPayload{Text: "what was done", ThroughSeq: 3000}},
		store.NewChunk{Kind: store.KindUser, Payload: store.UserPayload{Text: "the latest message"}})
	if _, err := f.db.Append(context.Background(), f.session, "", rows...); err != nil {
		t.Fatal(err)
	}
	copyTo := filepath.Join(f.folder, "transcript.jsonl")
	grab := f.script("grab.sh", "#!/bin/bash\npath=$(python3 -c 'import json,sys; print(json.load(sys.stdin)[\"transcript_path\"])')\ncp \"$path\" "+copyTo+"\n")
	f.personalHooks(hooksConfig("UserPromptSubmit", "", cmd(grab)))
	f.fire(hooks.Input{Event: hooks.UserPromptSubmit, Prompt: "go on"})
	b, err := os.ReadFile(copyTo)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	lines := strings.Count(text, "\n")
	if !strings.Contains(text, "what was done") || !strings.Contains(text, "the latest message") || strings.Contains(text, "old message 2999") || lines > 3 {
		t.Fatalf("the transcript (%d lines): %.300s", lines, text)
	}
}

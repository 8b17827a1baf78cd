package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// Gemini 3 through OpenRouter streams its reasoning.text in pieces at index 0 and then, with
// the tool call, its thought signature as a reasoning.encrypted item at the same index 0.
// OpenRouter answers 400 at the next request unless that item comes back as it was sent.
func TestOpenRouterGemini3ReasoningDetailsGoBackUnmodified(t *testing.T) {
	stream, err := os.ReadFile("testdata/openrouter_gemini3_tool_turn.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := startFake(t)
	srv.Enqueue(fakeai.Raw(string(stream)), fakeai.Text("It says alpha."))
	c, _ := newClient(t, srv.URL(), func(c *Config) { c.Name = "openrouter"; c.Model = "google/gemini-3-pro-preview" })

	turn := c.Stream(context.Background(), Request{Messages: userMsg("what does a.txt say?")}, Handler{})
	if turn.Err != nil || len(turn.ToolCalls) != 1 {
		t.Fatalf("first turn: %v %+v", turn.Err, turn.ToolCalls)
	}
	msgs := append(userMsg("what does a.txt say?"),
		Message{Role: RoleAssistant, ToolCalls: turn.ToolCalls, Raw: turn.Raw, Origin: turn.Origin},
		Message{Role: RoleTool, CallID: turn.ToolCalls[0].ID, ToolName: "read_file", Text: "alpha"})
	if next := c.Stream(context.Background(), Request{Messages: msgs}, Handler{}); next.Err != nil {
		t.Fatal(next.Err)
	}

	var sent struct {
		Messages []struct {
			ReasoningDetails []json.RawMessage `json:"reasoning_details"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &sent); err != nil || len(sent.Messages) < 2 {
		t.Fatalf("second request: %v %s", err, srv.Requests()[1].Body)
	}
	got := sent.Messages[1].ReasoningDetails
	text := `{"type":"reasoning.text","text":"**Locating the file**\n\nThe user wants what a.txt says, so I will read it first.\n\n","format":"google-gemini-v1","index":0}`
	want := []string{text, encryptedItem(t, stream)}
	if len(got) != len(want) {
		t.Fatalf("re-sent reasoning_details has %d items, want %d (the text, then the encrypted item as sent):\n%s", len(got), len(want), sent.Messages[1].ReasoningDetails)
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("reasoning_details[%d] re-sent as\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}

// encryptedItem is the reasoning.encrypted item of the recorded stream, byte for byte.
func encryptedItem(t *testing.T, stream []byte) string {
	t.Helper()
	for _, line := range strings.Split(string(stream), "\n") {
		if !strings.Contains(line, "reasoning.encrypted") {
			continue
		}
		var ev struct {
			Choices []struct {
				Delta struct {
					ReasoningDetails []json.RawMessage `json:"reasoning_details"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev); err != nil {
			t.Fatal(err)
		}
		return string(bytes.TrimSpace(ev.Choices[0].Delta.ReasoningDetails[0]))
	}
	t.Fatal("the recorded stream has no reasoning.encrypted item")
	return ""
}

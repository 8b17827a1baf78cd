package fakeai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func postJSON(t *testing.T, url string, hdr map[string]string, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestDialectsRefuseWhatTheRealServersRefuse(t *testing.T) {
	for _, tc := range []struct {
		dialect     Dialect
		model, want string
		reasoning   string
	}{
		{DialectDeepSeek, "deepseek-v4-pro", DeepSeekMissingReasoning, "r"},
		{DialectKimi, "kimi-k2-thinking", "thinking is enabled but reasoning_content is missing in assistant tool call message at index 1", "r"},
		{DialectGemini, "gemini-3-pro-preview", "Function call is missing a thought_signature", ""},
		{DialectOpenRouter, "anthropic/claude-sonnet-4.5", "Expected `thinking` or `redacted_thinking`, but found `tool_use`", "r"},
	} {
		t.Run(string(tc.dialect), func(t *testing.T) {
			s, err := Start()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s.Enqueue(ToolCalls(Call{ID: "c1", Name: "ls", Arguments: "{}"}).WithReasoning(tc.reasoning).WithDialect(tc.dialect))
			url := s.URL() + "/chat/completions"
			if code, _ := postJSON(t, url, nil, `{"model":"`+tc.model+`","stream":true,"messages":[{"role":"user","content":"hi"}]}`); code != 200 {
				t.Fatalf("first request: %d", code)
			}
			// The projection without reasoning or signature is refused with the server's words.
			projection := `{"model":"` + tc.model + `","messages":[{"role":"user","content":"hi"},` +
				`{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":"x"}]}`
			code, body := postJSON(t, url, nil, projection)
			if code != 400 || !strings.Contains(body, tc.want) {
				t.Fatalf("projection: %d %s", code, body)
			}
			// Another model on the same server does not apply this model's rules.
			if code, body := postJSON(t, url, nil, strings.Replace(projection, tc.model, "gpt-5", 1)); code != 200 {
				t.Fatalf("another model: %d %s", code, body)
			}
		})
	}
}

func anthropicPost(t *testing.T, s *Server, body string) (int, string) {
	t.Helper()
	return postJSON(t, strings.TrimSuffix(s.URL(), "/v1")+"/v1/messages", map[string]string{"anthropic-version": "2023-06-01"}, body)
}

func TestMessagesAPIStrictness(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cc := `,"cache_control":{"type":"ephemeral"}`
	user := func(text string, mark bool) string {
		m := ""
		if mark {
			m = cc
		}
		return `{"role":"user","content":[{"type":"text","text":"` + text + `"` + m + `}]}`
	}
	for _, tc := range []struct{ name, body, want string }{
		{"five breakpoints", `{"model":"m","max_tokens":10,"messages":[` + user("a", true) + `,` + user("b", true) + `,` + user("c", true) + `,` + user("d", true) + `,` + user("e", true) + `]}`,
			"A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{"unpaired tool_use", `{"model":"m","max_tokens":10,"messages":[` + user("a", false) + `,{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{}}]},` + user("b", false) + `]}`,
			"`tool_use` ids were found without `tool_result` blocks immediately after: t1"},
		{"unpaired tool_result", `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"x"}]}]}`,
			"unexpected `tool_use_id` found in `tool_result` blocks: t9"},
		{"altered signature", `{"model":"m","max_tokens":10,"messages":[` + user("a", false) + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"forged"},{"type":"text","text":"x"}]},` + user("b", false) + `]}`,
			"Invalid `signature` in `thinking` block"},
		{"no max_tokens", `{"model":"m","messages":[` + user("a", false) + `]}`, "max_tokens: Field required"},
	} {
		code, body := anthropicPost(t, s, tc.body)
		if code != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s", tc.name, code, body)
		}
	}
}

func TestMessagesAPIReportsCacheReadsOfARepeatedPrefix(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	long := strings.Repeat("lorem ipsum ", 200)
	first := `{"model":"m","max_tokens":10,"system":[{"type":"text","text":"` + long + `","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}]}`
	second := strings.Replace(first, `"text":"a","cache_control":{"type":"ephemeral"}}]}]`, `"text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]},{"role":"user","content":[{"type":"text","text":"c","cache_control":{"type":"ephemeral"}}]}]`, 1)
	usage := func(body string) map[string]int64 {
		code, out := anthropicPost(t, s, body)
		if code != 200 {
			t.Fatalf("%d %s", code, out)
		}
		i := strings.Index(out, "data: ")
		var ev struct {
			Message struct {
				Usage map[string]int64 `json:"usage"`
			} `json:"message"`
		}
		line, _, _ := bytes.Cut([]byte(out[i+6:]), []byte("\n"))
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatal(err)
		}
		return ev.Message.Usage
	}
	u1, u2 := usage(first), usage(second)
	if u1["cache_read_input_tokens"] != 0 || u1["cache_creation_input_tokens"] < 600 {
		t.Errorf("first %v", u1)
	}
	if u2["cache_read_input_tokens"] != u1["cache_creation_input_tokens"] || u2["cache_creation_input_tokens"] == 0 {
		t.Errorf("second %v (first %v)", u2, u1)
	}
}

// DeepSeek and Kimi refuse a tool-call turn without reasoning_content whoever made it; an
// empty one is what clients send for another model's turn.
func TestDeepSeekRefusesForeignToolTurnsWithoutReasoning(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Enqueue(ToolCalls(Call{ID: "c1", Name: "ls", Arguments: "{}"}).WithReasoning("r").WithDialect(DialectDeepSeek))
	url := s.URL() + "/chat/completions"
	postJSON(t, url, nil, `{"model":"deepseek-v4-pro","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	foreign := `{"model":"deepseek-v4-pro","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":""%s,"tool_calls":[{"id":"toolu_x","type":"function","function":{"name":"ls","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"toolu_x","content":"x"}]}`
	if code, body := postJSON(t, url, nil, fmt.Sprintf(foreign, "")); code != 400 || !strings.Contains(body, DeepSeekMissingReasoning) {
		t.Fatalf("without reasoning_content: %d %s", code, body)
	}
	if code, body := postJSON(t, url, nil, fmt.Sprintf(foreign, `,"reasoning_content":""`)); code != 200 {
		t.Fatalf("with an empty one: %d %s", code, body)
	}
}

package provider

import (
	"fmt"
	"testing"
)

// conversation is n tool rounds after a system prompt and a user message.
func conversation(n int) []Message {
	msgs := []Message{{Role: RoleSystem, Text: "sys"}, {Role: RoleUser, Text: "go"}}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			Message{Role: RoleAssistant, Text: "t", ToolCalls: []ToolCall{{ID: id, Name: "ls", Arguments: "{}"}, {ID: id + "b", Name: "ls", Arguments: "{}"}}},
			Message{Role: RoleTool, CallID: id, Text: "r"}, Message{Role: RoleTool, CallID: id + "b", Text: "r2"})
	}
	return msgs
}

// A body built with a Cache is byte for byte the body built without one, as messages are
// added, and after an earlier message changed (a compaction).
func TestCachedBodiesEqualFreshOnes(t *testing.T) {
	oa := New(Config{Model: "m"})
	an := NewAnthropic(Config{Model: "m"})
	for _, c := range []interface{ Body(Request) ([]byte, error) }{oa, an} {
		cache := &Cache{}
		for _, msgs := range [][]Message{conversation(1), conversation(2), conversation(5),
			append([]Message{{Role: RoleUser, Text: "summary"}}, conversation(5)[3:]...), conversation(6)} {
			fresh, err := c.Body(Request{Messages: msgs})
			if err != nil {
				t.Fatal(err)
			}
			cached, err := c.Body(Request{Messages: msgs, Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if string(fresh) != string(cached) {
				t.Fatalf("%T: cached body differs:\n%s\n%s", c, cached, fresh)
			}
		}
	}
}

// The tools are encoded once per list: the same list gives the same bytes, a changed tool
// (a description, a schema, one more tool) or another wire format is encoded afresh.
func TestCachedToolsFollowTheList(t *testing.T) {
	tools := []ToolSpec{{Name: "ls", Description: "list", Parameters: []byte(`{"type":"object"}`)}}
	lists := [][]ToolSpec{tools, tools,
		{{Name: "ls", Description: "list a folder", Parameters: []byte(`{"type":"object"}`)}},
		{{Name: "ls", Description: "list a folder", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		append(tools, ToolSpec{Name: "cat"}), nil, tools}
	cache := &Cache{}
	for _, c := range []interface{ Body(Request) ([]byte, error) }{New(Config{Model: "m"}), NewAnthropic(Config{Model: "m"})} {
		for i, list := range lists {
			req := Request{Messages: conversation(1), Tools: list}
			fresh, err := c.Body(req)
			if err != nil {
				t.Fatal(err)
			}
			req.Cache = cache // shared across both formats on purpose
			cached, err := c.Body(req)
			if err != nil {
				t.Fatal(err)
			}
			if string(fresh) != string(cached) {
				t.Fatalf("%T list %d: cached body differs:\n%s\n%s", c, i, cached, fresh)
			}
		}
	}
	bad := []ToolSpec{{Name: "x", Parameters: []byte(`{`)}}
	if _, err := New(Config{Model: "m"}).Body(Request{Messages: conversation(1), Tools: bad, Cache: cache}); err == nil {
		t.Fatal("a schema that is not JSON was sent")
	}
}

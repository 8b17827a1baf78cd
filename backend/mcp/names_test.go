package mcp

import (
	"regexp"
	"strings"
	"testing"
)

var modelNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestBaseName(t *testing.T) {
	long := strings.Repeat("t", 80)
	cases := []struct{ server, tool, want string }{
		{"everything", "get-sum", "mcp__everything__get-sum"},
		{"my.server", "read file", "mcp__my_server__read_file"},
		{"ü", "a/b:c", "mcp_____a_b_c"},
	}
	for _, c := range cases {
		if got := BaseName(c.server, c.tool); got != c.want {
			t.Errorf("BaseName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	a, b := BaseName("s", long), BaseName("s", long+"x")
	if len(a) != MaxNameLen || len(b) != MaxNameLen || a == b || a != BaseName("s", long) {
		t.Fatalf("long names: %q %q", a, b)
	}
	if !strings.HasPrefix(a, "mcp__s__ttt") {
		t.Fatalf("a shortened name keeps its beginning: %q", a)
	}
}

func TestAssignNamesDeterministicAndDistinct(t *testing.T) {
	refs := []ToolRef{
		{"b", "x.y"}, {"b", "x_y"}, // collide after sanitising
		{"a.b", "t"}, {"a_b", "t"}, // server names collide
		{"s", strings.Repeat("n", 70) + "1"}, {"s", strings.Repeat("n", 70) + "2"},
		{"plain", "echo"},
	}
	first := AssignNames(refs)
	reversed := make([]ToolRef, len(refs))
	for i, r := range refs {
		reversed[len(refs)-1-i] = r
	}
	second := AssignNames(reversed)
	byRef := map[ToolRef]string{}
	seen := map[string]bool{}
	for _, m := range first {
		if !modelNameRE.MatchString(m.Name) {
			t.Errorf("%q is not a valid function name", m.Name)
		}
		if seen[m.Name] {
			t.Errorf("duplicate name %q", m.Name)
		}
		seen[m.Name] = true
		byRef[ToolRef{m.Server, m.Tool}] = m.Name
	}
	for _, m := range second {
		if byRef[ToolRef{m.Server, m.Tool}] != m.Name {
			t.Errorf("%s/%s named %q in one order and %q in the other", m.Server, m.Tool, byRef[ToolRef{m.Server, m.Tool}], m.Name)
		}
	}
	// The pair that sorts first keeps the plain name; the other is renamed and says so.
	if byRef[ToolRef{"b", "x.y"}] != "mcp__b__x_y" {
		t.Errorf(`"b"/"x.y" = %q`, byRef[ToolRef{"b", "x.y"}])
	}
	for _, m := range first {
		if m.Server == "b" && m.Tool == "x_y" && !strings.Contains(m.Note, "renamed") {
			t.Errorf("renamed tool has note %q", m.Note)
		}
		if m.Server == "plain" && m.Note != "" {
			t.Errorf("plain tool has note %q", m.Note)
		}
	}
}

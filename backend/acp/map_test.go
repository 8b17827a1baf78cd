package acp

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/stack"
)

// Every Loopdesk status maps to an ACP stop reason; those ACP has no word for say why in a
// last message (docs/acp.md has the same table).
func TestStopReasonMapping(t *testing.T) {
	cases := []struct {
		status  core.StopReason
		want    sdk.StopReason
		message bool
	}{
		{core.StopCompleted, sdk.StopReasonEndTurn, false},
		{core.StopMaxTurns, sdk.StopReasonMaxTurnRequests, true},
		{core.StopMaxToolCalls, sdk.StopReasonMaxTurnRequests, true},
		{core.StopLoopDetected, sdk.StopReasonMaxTurnRequests, true},
		{core.StopTokenBudget, sdk.StopReasonMaxTokens, true},
		{core.StopCostBudget, sdk.StopReasonMaxTokens, true},
		{core.StopContextExceeded, sdk.StopReasonMaxTokens, true},
		{core.StopTruncated, sdk.StopReasonMaxTokens, true},
		{core.StopRefused, sdk.StopReasonRefusal, true},
		{core.StopCancelled, sdk.StopReasonCancelled, false},
		{core.StopTimeout, sdk.StopReasonEndTurn, true},
		{core.StopProviderError, sdk.StopReasonEndTurn, true},
		{core.StopError, sdk.StopReasonEndTurn, true},
	}
	for _, c := range cases {
		if got := StopReason(c.status); got != c.want {
			t.Errorf("%s -> %s, want %s", c.status, got, c.want)
		}
		msg := stopMessage(core.Result{Status: c.status, Error: "why"})
		if (msg != "") != c.message || (c.message && !strings.Contains(msg, string(c.status)+" — why")) {
			t.Errorf("%s: last message %q", c.status, msg)
		}
	}
}

func TestToolKinds(t *testing.T) {
	for name, want := range map[string]sdk.ToolKind{
		"read_file": "read", "list_dir": "read", "find_files": "search", "search_text": "search",
		"write_file": "edit", "edit_file": "edit", "run_shell_command": "execute",
		"mcp__web__fetch_url": "fetch", "mcp__fs__delete_file": "delete", "mcp__fs__read_text": "read",
		"mcp__fs__move_file": "move", "mcp__gh__search_issues": "search", "mcp__fs__write_file": "edit",
		"mcp__everything__echo": "other", "task": "other",
	} {
		if got := Kind(name); got != want {
			t.Errorf("Kind(%s) = %s, want %s", name, got, want)
		}
	}
}

// The "always" options say exactly which rule they save.
func TestPermissionOptionNames(t *testing.T) {
	opts := permissionOptions(stack.RuleInput{Tool: "run_shell_command", Pattern: "git status"})
	want := []string{"Allow once", `Always allow run_shell_command calls matching "git status" in this session`,
		"Reject once", `Always reject run_shell_command calls matching "git status" in this session`}
	for i, o := range opts {
		if o.Name != want[i] || string(o.OptionId) != string(o.Kind) {
			t.Errorf("option %d: %+v, want name %q", i, o, want[i])
		}
	}
	if got := permissionOptions(stack.RuleInput{Tool: "mcp__x__y", Pattern: "*"})[1].Name; got != "Always allow every mcp__x__y call in this session" {
		t.Errorf("a rule for every call is named %q", got)
	}
}

// A line over the limit is answered and skipped; the next line still goes through.
func TestFilterLinesTooLong(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"method":"x","params":"` + strings.Repeat("a", maxLine) + `"}`
	in := strings.NewReader(long + "\n" + `{"jsonrpc":"2.0","id":2,"method":"initialize"}` + "\n")
	var out bytes.Buffer
	r := filterLines(in, &lineWriter{w: &out}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != `{"jsonrpc":"2.0","id":2,"method":"initialize"}`+"\n" {
		t.Errorf("passed to the SDK: %.200q", passed)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || !strings.Contains(out.String(), "longer than 10 MiB") {
		t.Errorf("answered %q", out.String())
	}
}

func TestPromptText(t *testing.T) {
	mime := "text/x-go"
	got, err := promptText([]sdk.ContentBlock{sdk.TextBlock("fix this"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a", MimeType: &mime}}),
		sdk.ResourceLinkBlock("b.go", "file:///w/b.go")})
	if err != nil || got != "fix this\n\nContext from file:///w/a.go:\n```\npackage a\n```\n\n(see file:///w/b.go)" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := promptText([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}); err == nil {
		t.Error("an image was accepted though the capability is not offered")
	}
	if _, err := promptText([]sdk.ContentBlock{sdk.TextBlock("  ")}); err == nil {
		t.Error("an empty prompt was accepted")
	}
}

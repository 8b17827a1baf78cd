package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// OutputCap bounds a result's content, as shell output is bounded.
const OutputCap = tools.ShellOutputCap

// Tool is one MCP server tool as a tools.Tool. It stays usable across server
// restarts: each call goes to the server's connection of the moment.
type Tool struct {
	srv      *server
	name     string // model-facing
	def      toolDef
	readOnly bool
}

var _ tools.Tool = (*Tool)(nil)

// Name is the model-facing name, mcp__<server>__<tool> (see AssignNames).
func (t *Tool) Name() string { return t.name }

// Description is the server's description of the tool.
func (t *Tool) Description() string { return t.def.description }

// Schema is the server's inputSchema, prepared so that the registry compiles it.
func (t *Tool) Schema() json.RawMessage { return t.def.schema }

// ReadOnly is the tool's readOnlyHint, believed only for a trusted server.
func (t *Tool) ReadOnly() bool { return t.readOnly }

// Server is the name of the server the tool belongs to (the mcpServers key).
func (t *Tool) Server() string { return t.srv.name }

// OriginalName is the tool's name as the server knows it.
func (t *Tool) OriginalName() string { return t.def.name }

// Execute calls the tool on its server. args were validated by the registry.
// The call is bounded by the server's timeout_s (default 60 s); cancelling ctx
// (Stop) makes the SDK send notifications/cancelled to the server. Every
// failure is an error result naming the server, never a hang: a server that is
// down fails the call within CallWait with the reason it is down.
func (t *Tool) Execute(ctx context.Context, _ *tools.Workspace, args json.RawMessage, _ func(string)) tools.Result {
	s := t.srv
	c, err := s.awaitLive(ctx)
	if err != nil {
		return errorResult("%v", err)
	}
	timeout := s.cfg.CallTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := c.sess.CallTool(callCtx, &sdk.CallToolParams{Name: t.def.name, Arguments: args})
	switch {
	case err == nil:
		return convertResult(res)
	case ctx.Err() != nil:
		return errorResult("MCP server %q: call cancelled (the server was told to stop)", s.name)
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return errorResult("MCP server %q: no answer within %s (timeout_s); the call was cancelled", s.name, timeout)
	}
	var wire *jsonrpc.Error
	if errors.As(err, &wire) { // the server answered with an error: it is up
		return errorResult("MCP server %q: %v", s.name, err)
	}
	if down := s.downReason(c); down != "" {
		return errorResult("MCP server %q %s during the call%s", s.name, down, s.stderrSuffix())
	}
	return errorResult("MCP server %q: %v", s.name, err)
}

// awaitLive returns the live connection, waiting at most CallWait for one
// (a restart under way); otherwise an error saying why the server is down.
func (s *server) awaitLive(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	c, up := s.live, s.up
	s.mu.Unlock()
	if c != nil {
		return c, nil
	}
	t := time.NewTimer(s.opts.CallWait)
	defer t.Stop()
	select {
	case <-up:
		s.mu.Lock()
		c = s.live
		s.mu.Unlock()
		if c != nil {
			return c, nil
		}
	case <-t.C:
	case <-ctx.Done():
		return nil, fmt.Errorf("MCP server %q: call cancelled while waiting for the server", s.name)
	}
	s.mu.Lock()
	st, reason := s.state, s.reason
	s.mu.Unlock()
	if reason == "" {
		reason = "no reason known"
	}
	return nil, fmt.Errorf("MCP server %q is %s: %s%s", s.name, st, reason, s.stderrSuffix())
}

// downReason waits briefly for the watcher to notice that c ended and says
// how ("exited with code 7"); "" if c still looks alive.
func (s *server) downReason(c *conn) string {
	if c.proc == nil {
		return ""
	}
	if code, ok := c.proc.exitCode(time.Second); ok {
		return fmt.Sprintf("exited with code %d", code)
	}
	return ""
}

func (s *server) stderrSuffix() string {
	tail := s.log.Tail(5)
	if tail == "" {
		return ""
	}
	return "\nstderr (last lines):\n" + tail
}

func errorResult(format string, args ...any) tools.Result {
	return tools.Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// convertResult turns a CallToolResult into the text the model reads: text
// content as is, other content summarised (type, MIME, size) in its place,
// structuredContent as JSON when there is no text, capped at OutputCap.
func convertResult(res *sdk.CallToolResult) tools.Result {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		p, isText := describeContent(c)
		hasText = hasText || isText
		parts = append(parts, p)
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(no content)"
	}
	capped, cut := tools.CapOutput(text, OutputCap)
	return tools.Result{Content: capped, IsError: res.IsError, Meta: tools.Meta{Truncated: cut > 0}}
}

// describeContent is one content item as text, and whether it was text.
func describeContent(c sdk.Content) (string, bool) {
	switch v := c.(type) {
	case *sdk.TextContent:
		return v.Text, true
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %s]", orUnknown(v.MIMEType), size(len(v.Data))), false
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %s]", orUnknown(v.MIMEType), size(len(v.Data))), false
	case *sdk.ResourceLink:
		s := fmt.Sprintf("[resource link: %s (%s", v.URI, orUnknown(v.MIMEType))
		if v.Size != nil {
			s += ", " + size(int(*v.Size))
		}
		return s + ")]", false
	case *sdk.EmbeddedResource:
		r := v.Resource
		if r == nil {
			return "[resource: empty]", false
		}
		if r.Blob == nil {
			// Text of a resource is text the model can read; say where it came from.
			return fmt.Sprintf("[resource: %s (%s, %s)]\n%s", r.URI, orUnknown(r.MIMEType), size(len(r.Text)), r.Text), true
		}
		return fmt.Sprintf("[resource: %s (%s, %s)]", r.URI, orUnknown(r.MIMEType), size(len(r.Blob))), false
	}
	b, _ := json.Marshal(c)
	return fmt.Sprintf("[content: %s]", truncate(string(b), 200)), false
}

// size says how many bytes, as decoded data ([]byte fields hold decoded base64).
func size(n int) string { return fmt.Sprintf("%d bytes", n) }

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

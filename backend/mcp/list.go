package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopdesk/loopdesk/backend/tools"
)

// toolDef is a server tool as listed, with its inputSchema made ready for the
// registry. A tool whose schema cannot be compiled is kept with skip set, so
// Settings can say why it is not offered, rather than dropped silently.
type toolDef struct {
	name         string // as the server names it
	description  string
	schema       json.RawMessage
	readOnlyHint bool
	skip         string
}

// listTools reads every page of tools/list.
func listTools(ctx context.Context, sess *sdk.ClientSession) ([]toolDef, error) {
	var defs []toolDef
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		d := toolDef{name: t.Name, description: t.Description}
		if d.description == "" {
			d.description = t.Title
		}
		if t.Annotations != nil {
			d.readOnlyHint = t.Annotations.ReadOnlyHint
		}
		schema, err := prepareSchema(t.InputSchema)
		if err != nil {
			d.skip = fmt.Sprintf("%s: inputSchema not usable: %v", t.Name, err)
		}
		d.schema = schema
		defs = append(defs, d)
	}
	return defs, nil
}

// prepareSchema makes a server's inputSchema one the registry compiles and a
// model accepts: an object schema ("type": "object" and "properties" added
// when missing), without a "$schema" the validator cannot resolve offline. It
// is checked with tools.NewRegistry itself, so a tool offered never makes the
// run's registry fail and arguments are always validated before a call leaves.
func prepareSchema(in any) (json.RawMessage, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("not a JSON object: %s", truncate(string(raw), 80))
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
	}
	if m["type"] != "object" {
		return nil, fmt.Errorf(`"type" is %v, not "object"`, m["type"])
	}
	if _, ok := m["properties"]; !ok {
		m["properties"] = map[string]any{}
	}
	out, err := compiles(m)
	if err != nil && m["$schema"] != nil {
		delete(m, "$schema") // e.g. a draft URL the validator does not carry
		out, err = compiles(m)
	}
	return out, err
}

func compiles(m map[string]any) (json.RawMessage, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if _, err := tools.NewRegistry(schemaProbe(raw)); err != nil {
		return nil, err
	}
	return raw, nil
}

// schemaProbe is a tool with only a schema, for asking the registry whether
// it compiles.
type schemaProbe json.RawMessage

func (schemaProbe) Name() string              { return "schema_probe" }
func (schemaProbe) Description() string       { return "" }
func (p schemaProbe) Schema() json.RawMessage { return json.RawMessage(p) }
func (schemaProbe) ReadOnly() bool            { return true }
func (schemaProbe) Execute(context.Context, *tools.Workspace, json.RawMessage, func(string)) tools.Result {
	return tools.Result{}
}

// toolsChanged handles notifications/tools/list_changed for c. A notification
// that arrives before c is live (server-everything sends one right after
// initialize) is remembered and acted on by goLive.
func (s *server) toolsChanged(c *conn) {
	s.mu.Lock()
	live := s.live == c
	if !live {
		c.dirty = true
	}
	s.mu.Unlock()
	if live {
		go s.refreshTools(c)
	}
}

// refreshTools lists c's tools again and publishes them if c is still live and
// no later refresh got there first.
func (s *server) refreshTools(c *conn) {
	s.mu.Lock()
	c.seq++
	seq := c.seq
	c.dirty = false
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.InitTimeout)
	defer cancel()
	defs, err := listTools(ctx, c.sess)
	if err != nil {
		s.log.note("tools/list after list_changed failed: %v", err)
		return
	}
	s.mu.Lock()
	apply := s.live == c && c.seq == seq
	if apply {
		c.tools = defs
	}
	s.mu.Unlock()
	if apply {
		s.changed()
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

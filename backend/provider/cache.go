package provider

import (
	"bytes"
	"sort"
	"sync"
)

// Cache keeps the encoded messages of a conversation's last request, so that the next
// request encodes only the messages that changed: in a tool loop the messages only grow at
// the end, and a 10,000-row session's next turn then costs about what a 10-row one does.
// A change earlier in the list (a compaction, an undo) re-encodes from the first message
// that differs. Use one Cache per conversation (Request.Cache); it is safe for concurrent
// use, though a conversation makes one request at a time. The Messages and Tools of a
// request made with a Cache must not be changed afterwards: the Cache compares the next
// request's with them.
type Cache struct {
	mu    sync.Mutex
	key   Origin // what the units were encoded for (kind included)
	msgs  []Message
	units []unit
	// The last request's tool list and its encoding for toolsKind: a run offers the same
	// tools on every call, and encoding them (checking each schema, quoting each
	// description) cost about a tenth of a tool turn's model call (BenchmarkRunnerTurn).
	toolsKind string
	tools     []ToolSpec
	toolsJSON []byte
}

// unit is one wire message: the bytes that encode msgs[from:to] (several tool results make
// one Anthropic user message). user units may carry a cache breakpoint, added when the body
// is written, so the bytes kept here never hold one.
type unit struct {
	from, to int
	b        []byte
	user     bool
}

// encodeFunc encodes msgs[from:] as units.
type encodeFunc func(msgs []Message, from int) ([]unit, error)

// encode returns the units of msgs for origin o, reusing those of the last request up to the
// first message that differs. A nil Cache encodes everything.
func (c *Cache) encode(o Origin, msgs []Message, enc encodeFunc) ([]unit, error) {
	if c == nil {
		return enc(msgs, 0)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	keep := 0
	if c.key == o {
		p := commonPrefix(c.msgs, msgs)
		// Units are in message order: the first whose messages do not all lie in the prefix.
		keep = sort.Search(len(c.units), func(i int) bool { return c.units[i].to > p })
		// The last unit kept may have to grow (tool results joining one message): encode it again.
		keep = max(keep-1, 0)
	}
	from := 0
	if keep > 0 {
		from = c.units[keep-1].to
	}
	tail, err := enc(msgs, from)
	if err != nil {
		c.key, c.msgs, c.units = Origin{}, nil, nil
		return nil, err
	}
	// Grown in place: the units past keep belong to the last request, whose body is built and
	// sent before the next request of this session is encoded (one model call at a time per
	// session), and a body holds the units' bytes, never this array. Copying every unit each
	// request was most of the cost of a request in a 10,000-row session.
	units := append(c.units[:keep], tail...)
	c.key, c.msgs, c.units = o, msgs, units
	return units, nil
}

// commonPrefix is how many leading messages a and b share. Messages that came from the same
// rows share their strings and bytes, so each comparison is a pointer check.
func commonPrefix(a, b []Message) int {
	if len(a) > 0 && len(b) >= len(a) && &a[0] == &b[0] {
		// The same array grown at its end (store.TurnCache appends in place): messages already
		// sent are never changed.
		return len(a)
	}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if !sameMessage(&a[i], &b[i]) {
			return i
		}
	}
	return n
}

func sameMessage(a, b *Message) bool {
	if a.Role != b.Role || a.Text != b.Text || a.CallID != b.CallID || a.ToolName != b.ToolName ||
		a.IsError != b.IsError || a.Origin != b.Origin || len(a.ToolCalls) != len(b.ToolCalls) || !bytes.Equal(a.Raw, b.Raw) ||
		len(a.Images) != len(b.Images) {
		return false
	}
	for i := range a.Images {
		if a.Images[i].MediaType != b.Images[i].MediaType || !bytes.Equal(a.Images[i].Data, b.Images[i].Data) {
			return false
		}
	}
	for i := range a.ToolCalls {
		if a.ToolCalls[i] != b.ToolCalls[i] {
			return false
		}
	}
	return true
}

// encodeTools returns tools encoded by enc for the wire kind, reusing the last request's
// encoding when the list is the same. A nil Cache encodes every time.
func (c *Cache) encodeTools(kind string, tools []ToolSpec, enc func(*bytes.Buffer, []ToolSpec) error) ([]byte, error) {
	if c == nil {
		var b bytes.Buffer
		err := enc(&b, tools)
		return b.Bytes(), err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.toolsKind == kind && sameTools(c.tools, tools) {
		return c.toolsJSON, nil
	}
	var b bytes.Buffer
	if err := enc(&b, tools); err != nil {
		c.toolsKind, c.tools, c.toolsJSON = "", nil, nil
		return nil, err
	}
	c.toolsKind, c.tools, c.toolsJSON = kind, append([]ToolSpec(nil), tools...), b.Bytes()
	return c.toolsJSON, nil
}

// sameTools compares two tool lists by content. Within a run the lists share their strings
// and schemas, so each comparison stops at equal pointers; a later run's list is compared
// byte for byte (a few KB).
func sameTools(a, b []ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}

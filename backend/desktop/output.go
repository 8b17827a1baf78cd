package desktop

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/store"
)

// A tool result bigger than this goes to the page cut: its first and last screenful, the rest
// fetched with ToolOutput when the person asks. The page's memory and the bridge carry what is
// shown, not megabytes of a build log.
const (
	cutAboveLines = 200
	cutAboveBytes = 32 << 10
	keepLines     = 60      // each side
	keepBytes     = 8 << 10 // each side, for a few very long lines
)

// OutputCut is on a tool result's payload ("cut") when the page got only its head (as the
// content) and its tail.
type OutputCut struct {
	Tail       string `json:"tail"`
	TotalLines int    `json:"total_lines"`
	TotalBytes int    `json:"total_bytes"`
}

// OutputLines is a slice of a tool result: its lines From to To (To excluded) of Total.
type OutputLines struct {
	Text  string `json:"text"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Total int    `json:"total"`
}

// ToolOutput returns lines from..to (to excluded; to <= 0 or past the end: to the end) of the
// tool result at row seq.
func (s *Sessions) ToolOutput(sessionID string, seq int64, from, to int) (OutputLines, error) {
	content, err := s.c.db.ToolOutput(s.c.context(), sessionID, seq)
	if err != nil {
		return OutputLines{}, err
	}
	lines := strings.SplitAfter(content, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := len(lines)
	from = min(max(from, 0), n)
	if to <= 0 || to > n {
		to = n
	}
	to = max(to, from)
	return OutputLines{Text: strings.Join(lines[from:to], ""), From: from, To: to, Total: n}, nil
}

// pageRows cuts the big tool results of rows (the rows themselves are not changed).
func pageRows(rows []bus.StoredRow) []bus.StoredRow {
	var out []bus.StoredRow
	for i, r := range rows {
		p, ok := cutRow(r)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]bus.StoredRow(nil), rows...)
		}
		out[i].Payload = p
	}
	if out == nil {
		return rows
	}
	return out
}

// pageEvent is pageRows for the rows an event carries.
func pageEvent(ev bus.Event) bus.Event {
	if p, ok := ev.Payload.(bus.RowsStoredPayload); ok {
		ev.Payload = bus.RowsStoredPayload{Rows: pageRows(p.Rows)}
	}
	return ev
}

func cutRow(r bus.StoredRow) (json.RawMessage, bool) {
	if r.Kind != store.KindToolResult || len(r.Payload) <= cutAboveBytes/4 {
		return nil, false
	}
	var m map[string]json.RawMessage
	var content string
	if json.Unmarshal(r.Payload, &m) != nil || json.Unmarshal(m["content"], &content) != nil {
		return nil, false
	}
	lines := strings.Count(content, "\n") + 1
	if strings.HasSuffix(content, "\n") {
		lines--
	}
	if lines <= cutAboveLines && len(content) <= cutAboveBytes {
		return nil, false
	}
	head, tail := headLines(content, keepLines), tailLines(content, keepLines)
	cut := OutputCut{Tail: tail, TotalLines: lines, TotalBytes: len(content)}
	m["content"], _ = json.Marshal(head)
	m["cut"], _ = json.Marshal(cut)
	p, err := json.Marshal(m)
	return p, err == nil
}

// headLines is the first n lines of s, at most keepBytes of them (cut on a character).
func headLines(s string, n int) string {
	end := 0
	for i := 0; i < n && end < len(s); i++ {
		j := strings.IndexByte(s[end:], '\n')
		if j < 0 {
			end = len(s)
			break
		}
		end += j + 1
	}
	end = min(end, keepBytes)
	for end > 0 && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// tailLines is the last n lines of s, at most keepBytes of them.
func tailLines(s string, n int) string {
	start := len(strings.TrimSuffix(s, "\n"))
	for i := 0; i < n && start > 0; i++ {
		j := strings.LastIndexByte(s[:start], '\n')
		start = j
		if j < 0 {
			start = 0
			break
		}
	}
	if start > 0 {
		start++ // after the newline
	}
	start = max(start, len(s)-keepBytes)
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

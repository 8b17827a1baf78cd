package desktop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopdesk/loopdesk/backend/store"
)

// RowSeqs returns the seqs of the session's rows of one kind, oldest first: the chunk table
// filtered by kind scrolls over them and reads the rows themselves a page at a time
// (RowsBefore), so the page holds numbers, not rows. An unknown kind is an error.
func (s *Sessions) RowSeqs(id, kind string) ([]int64, error) {
	if !slices.Contains(store.Kinds, store.Kind(kind)) {
		return nil, fmt.Errorf("rows of session %s: no kind of row is called %q", id, kind)
	}
	return s.c.db.SeqsOfKind(s.c.context(), id, store.Kind(kind))
}

// FindInSession finds text in the session's rows outside from..to (the rows the page
// renders), as the page's find bar does in the rows it renders: case-insensitive, in what a
// row shows (messages, reasoning, a call's arguments, a tool's output, a decision's reason,
// notes and summaries), matches not overlapping. It returns one seq per match, oldest first,
// so the find bar counts and steps through the rows the page does not hold without reading
// them. The rows it looks in are those the search index finds with words starting with the
// text's words (store.FindRows, at most store.FindLimit rows), so text inside a word ("unc"
// of "function") is found only in the rows the page renders. Blank text finds nothing.
func (s *Sessions) FindInSession(id, text string, from, to int64) ([]int64, error) {
	out := []int64{}
	q := strings.ToLower(text)
	if strings.TrimSpace(q) == "" {
		return out, nil
	}
	rows, err := s.c.db.FindRows(s.c.context(), id, text, from, to, store.FindLimit)
	if err != nil {
		return nil, err
	}
	for _, c := range rows {
		for _, t := range shownTexts(c) {
			for n := strings.Count(strings.ToLower(t), q); n > 0; n-- {
				out = append(out, c.Seq)
			}
		}
	}
	return out, nil
}

// shownTexts is what a row shows that the find bar searches (the page's rowTexts).
func shownTexts(c store.Chunk) []string {
	var p struct {
		Text      string           `json:"text"`
		Reasoning string           `json:"reasoning"`
		Content   string           `json:"content"`
		Reason    string           `json:"reason"`
		ToolCalls []store.ToolCall `json:"tool_calls"`
	}
	if json.Unmarshal(c.Payload, &p) != nil {
		return nil
	}
	switch c.Kind {
	case store.KindAssistant:
		out := []string{p.Reasoning, p.Text}
		for _, tc := range p.ToolCalls {
			out = append(out, tc.Arguments)
		}
		return out
	case store.KindToolResult:
		return []string{p.Content}
	case store.KindApproval:
		return []string{p.Reason}
	case store.KindUser, store.KindNote, store.KindSummary, store.KindSystem:
		return []string{p.Text}
	}
	return nil
}

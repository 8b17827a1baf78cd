package fakeai

import (
	"encoding/json"
	"strings"
)

// Routed replies: a test that runs several conversations against one server at once (a
// parent session and the child sessions its task calls start) cannot rely on the order in
// which their requests arrive. EnqueueFor gives a conversation its own queue, chosen by a
// marker in the conversation's first user message (a child's first user message is the
// prompt its task call gave it; the parent's is the person's prompt). A request whose first
// user message contains no routed marker takes the shared queue.

// route is one conversation's queue.
type route struct {
	marker  string
	replies []Reply
}

// EnqueueFor appends replies to the queue of the conversations whose first user message
// contains marker. Markers are tried in the order they were first given.
func (s *Server) EnqueueFor(marker string, replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.routes {
		if s.routes[i].marker == marker {
			s.routes[i].replies = append(s.routes[i].replies, replies...)
			return
		}
	}
	s.routes = append(s.routes, route{marker: marker, replies: replies})
}

// nextFor pops the next reply of the first route whose marker the first user message holds,
// else the next reply of the shared queue (next).
func (s *Server) nextFor(firstUser string) (*Reply, int) {
	s.mu.Lock()
	for i := range s.routes {
		rt := &s.routes[i]
		if firstUser == "" || !strings.Contains(firstUser, rt.marker) {
			continue
		}
		if len(rt.replies) == 0 {
			break // the conversation's script is used up: the shared queue (or the echo) answers
		}
		r := rt.replies[0]
		rt.replies = rt.replies[1:]
		s.nextID++
		n := s.nextID
		s.mu.Unlock()
		return &r, n
	}
	s.mu.Unlock()
	return s.next()
}

// firstUserText is the text of the first user message ("" when there is none).
func (c chatRequest) firstUserText() string {
	for _, m := range c.Messages {
		if m.Role == "user" {
			return contentText(m.Content)
		}
	}
	return ""
}

// contentText reads a message's content, a string or an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// firstUserText is the text of a Messages API request's first user message (its text blocks;
// tool results are not text).
func (r *messagesRequest) firstUserText() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return contentText(m.Content)
		}
	}
	return ""
}

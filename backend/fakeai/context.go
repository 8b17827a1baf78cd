package fakeai

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// A context window for the fake model, so tests can meet the "request too long" refusal the
// way a real server gives it: every chat request whose messages hold more than the limit
// (in tokens, counted as 4 bytes of the messages' JSON each) is answered 400 with OpenAI's
// context_length_exceeded error, before any scripted reply is used.

// WithContextLimit sets the fake model's window in tokens; 0 means unlimited.
func WithContextLimit(tokens int) Option { return func(s *Server) { s.contextLimit = tokens } }

// SetContextLimit changes the window while the server runs (also POST /_fake/context_limit
// with {"tokens": N}).
func (s *Server) SetContextLimit(tokens int) {
	s.mu.Lock()
	s.contextLimit = tokens
	s.mu.Unlock()
}

// tooLong answers the request with the refusal when its messages do not fit, and reports
// whether it did.
func (s *Server) tooLong(w http.ResponseWriter, body []byte) bool {
	s.mu.Lock()
	limit := s.contextLimit
	s.mu.Unlock()
	if limit <= 0 {
		return false
	}
	var req struct {
		Messages json.RawMessage `json:"messages"`
	}
	_ = json.Unmarshal(body, &req) // the caller parsed the same body already
	tokens := (len(req.Messages) + 3) / 4
	if tokens <= limit {
		return false
	}
	writeError(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, "+
		"your messages resulted in %d tokens. Please reduce the length of the messages.", limit, tokens),
		"invalid_request_error", "context_length_exceeded")
	return true
}

func (s *Server) setContextLimit(w http.ResponseWriter, body []byte) {
	var in struct {
		Tokens int `json:"tokens"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		http.Error(w, "context_limit wants {\"tokens\": N}: "+err.Error(), http.StatusBadRequest)
		return
	}
	s.SetContextLimit(in.Tokens)
	w.WriteHeader(http.StatusNoContent)
}

package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
)

// The requests' cache: each session keeps the messages derived from its rows and the encoded
// messages of its last request, so the next model call is built from what changed.

// maxCachedSessions bounds how many sessions keep their derived messages and encoded request
// between runs (each costs about twice the session's text in memory).
const maxCachedSessions = 8

// RequestCache is what one session keeps so the next model call is built from what changed:
// the messages derived from its rows and the encoded messages of its last request (Enc, for
// provider.Request.Cache).
type RequestCache struct {
	mu    sync.Mutex // guards turns, chunks and est; Enc guards itself
	turns TurnCache
	Enc   provider.Cache
	used  uint64 // when it was last taken, for eviction
	// chunks are the session's rows as the last run opened them: rows are append-only with
	// gap-free seqs, so the next run reads only the rows stored since (by any process).
	chunks []Chunk
	// est is the context estimate of the rows through seq est.through, without the system
	// prompt (which can change per run); it grows with the rows until a summary row arrives.
	est struct {
		through int64
		tokens  int64
		valid   bool
	}
}

// RequestCaches hands out each session's RequestCache. The zero value is ready to use.
type RequestCaches struct {
	mu    sync.Mutex
	tick  uint64
	bySID map[string]*RequestCache
}

// Take returns the session's cache.
func (c *RequestCaches) Take(sessionID string) *RequestCache {
	c.mu.Lock()
	if c.bySID == nil {
		c.bySID = map[string]*RequestCache{}
	}
	rc := c.bySID[sessionID]
	if rc == nil {
		if len(c.bySID) >= maxCachedSessions {
			c.evictOldest()
		}
		rc = &RequestCache{}
		c.bySID[sessionID] = rc
	}
	c.tick++
	rc.used = c.tick
	c.mu.Unlock()
	return rc
}

// Turns derives the messages of rows through the cache.
func (rc *RequestCache) Turns(rows []Chunk) ([]provider.Message, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.turns.Turns(rows)
}

func (c *RequestCaches) evictOldest() {
	var oldest string
	var at uint64
	for sid, rc := range c.bySID {
		if oldest == "" || rc.used < at {
			oldest, at = sid, rc.used
		}
	}
	delete(c.bySID, oldest)
}

// RowsSource reads a session's rows: the ones its next request is derived from
// (*DB.RequestRows) and the ones stored after a seq (*DB.ChunksAfter).
type RowsSource interface {
	RequestRows(ctx context.Context, sessionID string) ([]Chunk, error)
	ChunksAfter(ctx context.Context, sessionID string, after int64) ([]Chunk, error)
}

// Rows returns the rows the session's next request is derived from (RequestRows: those since
// its last compaction, with the summary and system rows): the ones held since the last run
// plus those stored since. A compaction among the new rows makes the earlier rows it replaced
// useless to every later request, so the rows are read again from it and the cache lets go of
// them. The slice is clipped: a run appending its own rows never writes into the cache's
// array, and the next run copies nothing it already held.
func (rc *RequestCache) Rows(ctx context.Context, st RowsSource, sessionID string) ([]Chunk, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	n := len(rc.chunks)
	if n == 0 {
		return rc.reload(ctx, st, sessionID)
	}
	more, err := st.ChunksAfter(ctx, sessionID, rc.chunks[n-1].Seq)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(more, func(c Chunk) bool { return c.Kind == KindSummary }) {
		return rc.reload(ctx, st, sessionID)
	}
	// Appending in place is safe: every slice handed out is clipped, so none sees past its
	// own length, and a run's own appends go to a new array.
	rc.chunks = append(rc.chunks, more...)
	return slices.Clip(rc.chunks), nil
}

func (rc *RequestCache) reload(ctx context.Context, st RowsSource, sessionID string) ([]Chunk, error) {
	rows, err := st.RequestRows(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	rc.chunks = rows
	return slices.Clip(rows), nil
}

// Estimate is EstimateContext(chunks, system), counting only the rows stored since the last
// estimate unless a summary row (a compaction, a set-aside, an undo) changed what the earlier
// rows send.
func (rc *RequestCache) Estimate(chunks []Chunk, system string) (int64, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	from := 0
	if rc.est.valid {
		from = sort.Search(len(chunks), func(i int) bool { return chunks[i].Seq > rc.est.through })
		for _, c := range chunks[from:] {
			if c.Kind == KindSummary {
				rc.est.valid = false
				break
			}
		}
	}
	if !rc.est.valid {
		rc.est.tokens, from = 0, 0
	}
	if from < len(chunks) {
		var n int64
		var err error
		if from == 0 {
			// Through the messages' cache: the run derives these messages next (Turns), and
			// decoding every row twice was most of the cost of a long session's first request.
			var msgs []provider.Message
			if msgs, err = rc.turns.Turns(chunks); err == nil {
				n, err = estimateMessages(msgs, "")
			}
		} else {
			n, err = EstimateContext(chunks[from:], "")
		}
		if err != nil {
			rc.est.valid = false
			return 0, err
		}
		rc.est.tokens += n
	}
	if len(chunks) > 0 {
		rc.est.through = chunks[len(chunks)-1].Seq
	}
	rc.est.valid = true
	return rc.est.tokens + core.EstimateTokens(system), nil
}

// EstimateContext sizes the messages a request built from chunks would carry, in tokens.
func EstimateContext(chunks []Chunk, system string) (int64, error) {
	turns, err := Turns(chunks)
	if err != nil {
		return 0, err
	}
	return estimateMessages(turns, system)
}

// estimateMessages is EstimateContext of the rows whose messages (Turns) are turns.
func estimateMessages(turns []provider.Message, system string) (int64, error) {
	msgs, err := provider.EncodeOpenAI(turns, provider.Origin{})
	if err != nil {
		return 0, err
	}
	n := core.EstimateTokens(system)
	for _, m := range msgs {
		n += core.EstimateMessage(string(m))
	}
	return n, nil
}

// summaryPrompt asks for the summary that replaces the rows through the cut.
const summaryPrompt = "[loopdesk] Summarise the conversation so far for your own later use: the task, " +
	"decisions made, facts learned (file names, commands, results), what is done and what remains. " +
	"Be complete but concise; this summary replaces the earlier messages."

// SummaryRequest is what a summary call sends for the rows through the core's cut: the
// messages of the rows it replaces, text only (a summary is asked of the text), then the
// request for the summary. tail is what the next request still carries (SplitAt).
func SummaryRequest(chunks []Chunk, through int64) (msgs []provider.Message, tail []Chunk, err error) {
	head, tail, err := SplitAt(chunks, through)
	if err == nil {
		msgs, err = Turns(head)
	}
	if err != nil {
		return nil, nil, err
	}
	for i := range msgs {
		msgs[i].ImageRefs = nil
	}
	return append(msgs, provider.Message{Role: provider.RoleUser, Text: summaryPrompt}), tail, nil
}

// SplitAt splits the rows at the core's cut: head is what the summary call reads (with the
// summaries in effect over it), tail what the next request still carries.
func SplitAt(chunks []Chunk, through int64) ([]Chunk, []Chunk, error) {
	var head, tail []Chunk
	for _, c := range chunks {
		if c.Kind == KindSummary {
			var p SummaryPayload
			if err := json.Unmarshal(c.Payload, &p); err != nil {
				return nil, nil, fmt.Errorf("row %d: summary payload: %w", c.Seq, err)
			}
			switch {
			case p.ThroughSeq <= through:
				head = append(head, c)
			case p.FromSeq > through:
				tail = append(tail, c) // a set-aside after the cut still folds its rows
			}
			continue
		}
		if c.Seq <= through {
			head = append(head, c)
		} else {
			tail = append(tail, c)
		}
	}
	return head, tail, nil
}

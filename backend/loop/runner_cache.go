package loop

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// maxCachedSessions bounds how many sessions keep their derived messages and encoded request
// between runs (each costs about twice the session's text in memory).
const maxCachedSessions = 8

// requestCache is what one session keeps so the next model call is built from what changed:
// the messages derived from its rows and the encoded messages of its last request.
type requestCache struct {
	mu    sync.Mutex // guards turns, chunks and est; enc guards itself
	turns store.TurnCache
	enc   provider.Cache
	used  uint64 // when it was last taken, for eviction
	// chunks are the session's rows as the last run opened them: rows are append-only with
	// gap-free seqs, so the next run reads only the rows stored since (by any process).
	chunks []store.Chunk
	// est is the context estimate of the rows through seq est.through, without the system
	// prompt (which can change per run); it grows with the rows until a summary row arrives.
	est struct {
		through int64
		tokens  int64
		valid   bool
	}
}

// requestCaches hands out each session's requestCache. The zero value is ready to use.
type requestCaches struct {
	mu    sync.Mutex
	tick  uint64
	bySID map[string]*requestCache
}

// take returns the session's cache.
func (c *requestCaches) take(sessionID string) *requestCache {
	c.mu.Lock()
	if c.bySID == nil {
		c.bySID = map[string]*requestCache{}
	}
	rc := c.bySID[sessionID]
	if rc == nil {
		if len(c.bySID) >= maxCachedSessions {
			c.evictOldest()
		}
		rc = &requestCache{}
		c.bySID[sessionID] = rc
	}
	c.tick++
	rc.used = c.tick
	c.mu.Unlock()
	return rc
}

// turnsOf derives the messages of rows through the cache.
func (rc *requestCache) turnsOf(rows []store.Chunk) ([]provider.Message, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.turns.Turns(rows)
}

func (c *requestCaches) evictOldest() {
	var oldest string
	var at uint64
	for sid, rc := range c.bySID {
		if oldest == "" || rc.used < at {
			oldest, at = sid, rc.used
		}
	}
	delete(c.bySID, oldest)
}

// rows returns the session's rows: the ones held since the last run plus those stored since.
// The slice is clipped: a run appending its own rows never writes into the cache's array, and
// the next run copies nothing it already held.
func (rc *requestCache) rows(ctx context.Context, st Store, sessionID string) ([]store.Chunk, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var after int64
	if n := len(rc.chunks); n > 0 {
		after = rc.chunks[n-1].Seq
	}
	more, err := st.ChunksAfter(ctx, sessionID, after)
	if err != nil {
		return nil, err
	}
	// Appending in place is safe: every slice handed out is clipped, so none sees past its
	// own length, and a run's own appends go to a new array.
	rc.chunks = append(rc.chunks, more...)
	return slices.Clip(rc.chunks), nil
}

// estimate is EstimateContext(chunks, system), counting only the rows stored since the last
// estimate unless a summary row (a compaction, a set-aside, an undo) changed what the earlier
// rows send.
func (rc *requestCache) estimate(chunks []store.Chunk, system string) (int64, error) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	from := 0
	if rc.est.valid {
		from = sort.Search(len(chunks), func(i int) bool { return chunks[i].Seq > rc.est.through })
		for _, c := range chunks[from:] {
			if c.Kind == store.KindSummary {
				rc.est.valid = false
				break
			}
		}
	}
	if !rc.est.valid {
		rc.est.tokens, from = 0, 0
	}
	if from < len(chunks) {
		n, err := EstimateContext(chunks[from:], "")
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

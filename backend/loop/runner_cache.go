package loop

import (
	"sync"

	"github.com/loopdesk/loopdesk/backend/provider"
	"github.com/loopdesk/loopdesk/backend/store"
)

// maxCachedSessions bounds how many sessions keep their derived messages and encoded request
// between runs (each costs about twice the session's text in memory).
const maxCachedSessions = 8

// requestCache is what one session keeps so the next model call is built from what changed:
// the messages derived from its rows and the encoded messages of its last request.
type requestCache struct {
	mu    sync.Mutex // guards turns; enc guards itself
	turns store.TurnCache
	enc   provider.Cache
	used  uint64 // when it was last taken, for eviction
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

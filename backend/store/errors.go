package store

import "errors"

// Sentinel errors. Every error the store returns wraps at most one of these,
// so callers branch with errors.Is and show err.Error() to people: the
// wrapping text says what was being done and to which session.
var (
	// ErrNotFound: no session, run or rule with that id.
	ErrNotFound = errors.New("not found")
	// ErrSeqOutOfRange: a fork point outside 1..last seq of the session.
	ErrSeqOutOfRange = errors.New("seq out of range")
	// ErrInvalid: the caller passed something the store refuses to save
	// (unknown kind, payload that does not fit its kind, empty title ...).
	ErrInvalid = errors.New("invalid input")
	// ErrUnpaired: an append would leave the session in a state that makes
	// the next model request invalid (a tool result for a call that is not
	// pending, a user row while tool calls still wait for results ...).
	ErrUnpaired = errors.New("tool calls and results do not pair up")
	// ErrSessionBusy: another live run is already recorded for the session.
	ErrSessionBusy = errors.New("session has a run in progress")
	// ErrBadQuery: the full-text query does not parse.
	ErrBadQuery = errors.New("bad search query")
	// ErrBadImport: an import file that is not a Loopdesk session export.
	ErrBadImport = errors.New("bad import file")
	// ErrSecret: a setting whose name says it holds a secret; the API key
	// never reaches the database.
	ErrSecret = errors.New("secrets are not stored in the database")

	// Errors about the database file itself, returned by Open.

	// ErrNotDatabase: the file is not an SQLite database (or its header is damaged).
	ErrNotDatabase = errors.New("file is not a Loopdesk database")
	// ErrCorrupt: SQLite reports the file as malformed.
	ErrCorrupt = errors.New("database file is corrupt")
	// ErrReadOnly: the file (or its folder) cannot be written.
	ErrReadOnly = errors.New("database file is read-only")
	// ErrLocked: another process holds a lock longer than the busy timeout.
	ErrLocked = errors.New("database is locked by another process")
	// ErrTooNew: the file was written by a newer Loopdesk.
	ErrTooNew = errors.New("database was created by a newer version of Loopdesk")
)

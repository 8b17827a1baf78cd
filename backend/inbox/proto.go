package inbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopdesk/loopdesk/backend/store"
)

// Version is the socket protocol's version: every message carries it as "v", and a message
// of another version is refused with an error reply.
const Version = 1

// The protocol's operations. A registered process (run, acp) sends opRegister once, then
// opPending with its whole list each time it changes, and answers each opAnswer the window
// sends it with opAnswered (same id). A one-shot client (the CLI) sends opList, opAnswer,
// opAlways or opDismiss and reads one opReply.
const (
	opRegister = "register"
	opPending  = "pending"
	opAnswered = "answered"
	opList     = "list"
	opAnswer   = "answer"
	opAlways   = "always"
	opDismiss  = "dismiss"
	opReply    = "reply"
)

// Error codes of a reply, for the CLI's exit status.
const (
	codeNotPending = "not_pending"
	codeInvalid    = "invalid"
	codeError      = "error"
)

// maxMessage bounds one line: a list of calls with their diffs fits; a peer sending more is
// cut off.
const maxMessage = 16 << 20

// message is one line of the protocol, in either direction; each op uses some fields.
type message struct {
	V  int    `json:"v"`
	Op string `json:"op"`
	ID uint64 `json:"id,omitempty"`

	Origin    *Process       `json:"origin,omitempty"`    // register
	Approvals []Approval     `json:"approvals,omitempty"` // pending
	Answer    *Answer        `json:"answer,omitempty"`    // answer
	Always    *store.NewRule `json:"always,omitempty"`    // answer, window to process: the rule to save
	SessionID string         `json:"session_id,omitempty"`
	CallID    string         `json:"call_id,omitempty"` // always
	Scope     string         `json:"scope,omitempty"`   // always
	RunID     string         `json:"run_id,omitempty"`  // dismiss

	OK       bool   `json:"ok,omitempty"` // reply, answered
	Error    string `json:"error,omitempty"`
	Code     string `json:"code,omitempty"`
	View     *View  `json:"view,omitempty"`     // reply to list
	Approved int    `json:"approved,omitempty"` // reply to always
}

// errorReply is the reply for err, with its code.
func errorReply(op string, id uint64, err error) message {
	code := codeError
	switch {
	case errors.Is(err, ErrNotPending):
		code = codeNotPending
	case errors.Is(err, ErrInvalid):
		code = codeInvalid
	}
	return message{V: Version, Op: op, ID: id, Error: err.Error(), Code: code}
}

// replyError turns a reply's error back into one callers can branch on.
func replyError(m message) error {
	if m.OK {
		return nil
	}
	switch m.Code {
	case codeNotPending:
		return &remoteError{m.Error, ErrNotPending}
	case codeInvalid:
		return &remoteError{m.Error, ErrInvalid}
	}
	return errors.New(m.Error)
}

// remoteError is the other side's message, wrapping the sentinel its code names.
type remoteError struct {
	msg  string
	kind error
}

func (e *remoteError) Error() string { return e.msg }
func (e *remoteError) Unwrap() error { return e.kind }

func encode(m message) []byte {
	b, err := json.Marshal(m)
	if err != nil { // every field marshals; a failure is a bug worth seeing
		b, _ = json.Marshal(message{V: Version, Op: opReply, Error: "encode: " + err.Error(), Code: codeError})
	}
	return append(b, '\n')
}

// SocketPath is where the window of the database at dbPath listens:
// $XDG_RUNTIME_DIR/loopdesk/<id>.sock, or, without XDG_RUNTIME_DIR, <temp>/loopdesk-<uid>/<id>.sock.
// id is the database's absolute path hashed, as the window's single-instance id is.
func SocketPath(dbPath string) string {
	if abs, err := filepath.Abs(dbPath); err == nil {
		dbPath = abs
	}
	sum := sha256.Sum256([]byte(dbPath))
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" {
		dir = filepath.Join(dir, "loopdesk")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("loopdesk-%d", os.Getuid()))
	}
	return filepath.Join(dir, hex.EncodeToString(sum[:6])+".sock")
}

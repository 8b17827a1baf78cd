package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"log"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/loopdesk/loopdesk/backend/store"
)

// ErrInUse: another process already listens on the database's socket.
var ErrInUse = errors.New("another Loopdesk window listens for this database")

// answerTimeout bounds how long the window waits for a registered process to answer an
// answer: it only claims the call and replies.
const answerTimeout = 10 * time.Second

// Listen makes the socket at path: its folder private to the user (0700, refused if another
// user owns it or others can enter it), the socket 0600. A socket left by a window that
// crashed is replaced; one a live window listens on is ErrInUse.
func Listen(path string) (net.Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return nil, fmt.Errorf("inbox socket: %s is not a folder", dir)
	case ok && int(st.Uid) != os.Getuid():
		return nil, fmt.Errorf("inbox socket: %s belongs to another user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("inbox socket: %w", err)
		}
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("inbox socket %s: %w", path, ErrInUse)
	}
	_ = os.Remove(path) // a crashed window's socket; absent is fine
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("inbox socket: %w", err)
	}
	return ln, nil
}

// CheckPeer refuses a connection from another user than uid.
func CheckPeer(cred *unix.Ucred, uid int) error {
	if cred == nil {
		return errors.New("refused: the peer's credentials are unknown")
	}
	if int(cred.Uid) != uid {
		return fmt.Errorf("refused: the peer (pid %d) runs as uid %d, not %d", cred.Pid, cred.Uid, uid)
	}
	return nil
}

// peerCred reads the connecting process's credentials (SO_PEERCRED).
func peerCred(c net.Conn) (*unix.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, errors.New("not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, credErr
}

// Serve answers connections on ln until ctx ends, then closes ln and removes the socket
// file. Each connection is checked to come from this user; a bad message gets an error reply
// and the connection goes on.
func (h *Hub) Serve(ctx context.Context, ln net.Listener) {
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				log.Printf("loopdesk: inbox socket: %v", err)
			}
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.serveConn(ctx, c)
		}()
	}
}

func (h *Hub) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	cred, err := peerCred(c)
	if err == nil {
		err = CheckPeer(cred, os.Getuid())
	}
	w := &connWriter{c: c}
	if err != nil {
		w.send(message{V: Version, Op: opReply, Error: err.Error(), Code: codeError})
		return
	}
	var p *peer
	defer func() {
		if p != nil {
			h.drop(p)
		}
	}()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), maxMessage)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			w.send(errorReply(opReply, 0, fmt.Errorf("%w: bad message: %v", ErrInvalid, err)))
			continue
		}
		if m.V != Version {
			w.send(errorReply(opReply, m.ID, fmt.Errorf("%w: protocol version %d (this window speaks %d)", ErrInvalid, m.V, Version)))
			continue
		}
		if p != nil {
			p.handle(m)
			continue
		}
		if m.Op == opRegister {
			p = h.register(m, cred, w) // nil after an error reply: the connection goes on unregistered
			continue
		}
		w.send(h.request(ctx, m))
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		w.send(errorReply(opReply, 0, fmt.Errorf("%w: a message longer than %d bytes", ErrInvalid, maxMessage)))
	}
}

// request answers a one-shot client's request.
func (h *Hub) request(ctx context.Context, m message) message {
	reply := message{V: Version, Op: opReply, ID: m.ID, OK: true}
	var err error
	switch m.Op {
	case opList:
		var v View
		v, err = h.View(ctx)
		reply.View = &v
	case opAnswer:
		if m.Answer == nil {
			err = fmt.Errorf("%w: answer without an answer", ErrInvalid)
		} else {
			err = h.Answer(ctx, *m.Answer)
		}
	case opAlways:
		reply.Approved, err = h.AlwaysAllow(ctx, m.SessionID, m.CallID, m.Scope)
	case opDismiss:
		err = h.Dismiss(ctx, m.RunID)
	default:
		err = fmt.Errorf("%w: unknown op %q", ErrInvalid, m.Op)
	}
	if err != nil {
		r := errorReply(opReply, m.ID, err)
		r.Approved = reply.Approved
		return r
	}
	return reply
}

// register makes the connection a registered process's; nil (after an error reply) when
// the origin is not one a process can have.
func (h *Hub) register(m message, cred *unix.Ucred, w *connWriter) *peer {
	if m.Origin == nil || (m.Origin.Kind != OriginRun && m.Origin.Kind != OriginACP) {
		w.send(errorReply(opReply, m.ID, fmt.Errorf("%w: register with origin kind run or acp", ErrInvalid)))
		return nil
	}
	p := &peer{hub: h, w: w, origin: Process{Kind: m.Origin.Kind, PID: int(cred.Pid), Client: m.Origin.Client},
		waits: map[uint64]chan message{}}
	h.mu.Lock()
	h.seq++
	p.id = h.seq
	h.peers[p.id] = p
	h.mu.Unlock()
	w.send(message{V: Version, Op: opReply, ID: m.ID, OK: true})
	h.Changed()
	return p
}

// drop forgets a process that went away: its calls leave the inbox, and answers still
// waiting on it fail as not pending (nothing holds the call any more).
func (h *Hub) drop(p *peer) {
	h.mu.Lock()
	delete(h.peers, p.id)
	h.mu.Unlock()
	p.mu.Lock()
	p.gone = true
	for id, ch := range p.waits {
		close(ch)
		delete(p.waits, id)
	}
	p.list = nil
	p.mu.Unlock()
	h.Changed()
}

// connWriter serialises writes to one connection.
type connWriter struct {
	mu sync.Mutex
	c  net.Conn
}

func (w *connWriter) send(m message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(answerTimeout))
	_, err := w.c.Write(encode(m))
	return err
}

// peer is a registered process as the window sees it.
type peer struct {
	hub    *Hub
	id     uint64
	w      *connWriter
	origin Process

	mu    sync.Mutex
	list  []Approval
	seq   uint64
	waits map[uint64]chan message
	gone  bool
}

// handle takes a registered process's message: its list of waiting calls, or its reply
// to an answer.
func (p *peer) handle(m message) {
	switch m.Op {
	case opPending:
		list := make([]Approval, 0, len(m.Approvals))
		for _, a := range m.Approvals {
			if a.SessionID == "" || a.CallID == "" {
				continue // not a call anyone could answer
			}
			a.Kind, a.Origin = KindApproval, p.origin // what the socket says, not what the process claims
			if len(a.Arguments) == 0 {
				a.Arguments = []byte("{}")
			}
			list = append(list, a)
		}
		p.mu.Lock()
		p.list = list
		p.mu.Unlock()
		p.hub.Changed()
	case opAnswered:
		p.mu.Lock()
		ch := p.waits[m.ID]
		delete(p.waits, m.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- m // buffered 1
		}
	default:
		p.w.send(errorReply(opReply, m.ID, fmt.Errorf("%w: unknown op %q from a registered process", ErrInvalid, m.Op)))
	}
}

// Approvals is the process's last list, with WaitingMS as of now.
func (p *peer) Approvals(context.Context) []Approval {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]Approval, len(p.list))
	for i, a := range p.list {
		a.WaitingMS = now.Sub(a.RequestedAt).Milliseconds()
		out[i] = a
	}
	return out
}

// Answer sends the answer to the process and waits for its reply: the process's own
// Approver decides whether it won.
func (p *peer) Answer(ctx context.Context, ans Answer, always *store.NewRule) error {
	ch := make(chan message, 1)
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return fmt.Errorf("answer call %s: the process went away: %w", ans.CallID, ErrNotPending)
	}
	p.seq++
	id := p.seq
	p.waits[id] = ch
	p.mu.Unlock()
	forget := func() {
		p.mu.Lock()
		delete(p.waits, id)
		p.mu.Unlock()
	}
	if err := p.w.send(message{V: Version, Op: opAnswer, ID: id, Answer: &ans, Always: always}); err != nil {
		forget()
		return fmt.Errorf("answer call %s in process %d: %w", ans.CallID, p.origin.PID, err)
	}
	timer := time.NewTimer(answerTimeout)
	defer timer.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("answer call %s: the process went away: %w", ans.CallID, ErrNotPending)
		}
		if err := replyError(m); err != nil {
			return err
		}
		p.forgetCall(ans.SessionID, ans.CallID)
		return nil
	case <-ctx.Done():
		forget()
		return ctx.Err()
	case <-timer.C:
		forget()
		return fmt.Errorf("answer call %s: process %d did not reply in %s", ans.CallID, p.origin.PID, answerTimeout)
	}
}

// forgetCall drops an answered call from the list at once, before the process's next list.
func (p *peer) forgetCall(sessionID, callID string) {
	p.mu.Lock()
	kept := p.list[:0:0]
	for _, a := range p.list {
		if a.SessionID != sessionID || a.CallID != callID {
			kept = append(kept, a)
		}
	}
	p.list = kept
	p.mu.Unlock()
	p.hub.Changed()
}

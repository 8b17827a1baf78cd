package inbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// ErrNoWindow: no window has the database open (nothing listens on its socket).
var ErrNoWindow = errors.New("no Loopdesk window has this database open")

// dialTimeout bounds connecting to the socket: it is local, so a window that does not
// accept within it is as good as gone.
const dialTimeout = 2 * time.Second

// dial connects to the window of the database at dbPath; ErrNoWindow when none listens, or
// when the socket is not one this user's window made (its folder or the socket belongs to
// someone else, or others may write the folder): a process never sends its calls to, nor
// takes answers from, anyone else.
func dial(ctx context.Context, dbPath string) (net.Conn, error) {
	path := SocketPath(dbPath)
	if err := ownSocket(path); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoWindow, err)
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoWindow, err)
	}
	return c, nil
}

// ownSocket refuses a socket whose folder or file is another user's, or whose folder others
// may write (they could put a socket of theirs there).
func ownSocket(path string) error {
	for _, p := range []string{filepath.Dir(path), path} {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
			return fmt.Errorf("%s belongs to another user", p)
		}
		if fi.IsDir() && fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("others may write %s", p)
		}
	}
	return nil
}

// request sends one request to the window and reads its reply.
func request(ctx context.Context, dbPath string, m message) (message, error) {
	c, err := dial(ctx, dbPath)
	if err != nil {
		return message{}, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	m.V = Version
	if _, err := c.Write(encode(m)); err != nil {
		return message{}, fmt.Errorf("ask the window: %w", err)
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), maxMessage)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return message{}, fmt.Errorf("read the window's reply: %w", err)
		}
		return message{}, errors.New("the window closed the connection without a reply")
	}
	var r message
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
		return message{}, fmt.Errorf("read the window's reply: %w", err)
	}
	return r, replyError(r)
}

// List is the inbox of the window that has the database at dbPath open (ErrNoWindow when
// none has).
func List(ctx context.Context, dbPath string) (View, error) {
	r, err := request(ctx, dbPath, message{Op: opList})
	if err != nil {
		return View{}, err
	}
	if r.View == nil {
		return View{Approvals: []Approval{}, Ended: []Ended{}}, nil
	}
	return *r.View, nil
}

// Send answers a waiting call through the window, in whichever process holds it.
func Send(ctx context.Context, dbPath string, ans Answer) error {
	_, err := request(ctx, dbPath, message{Op: opAnswer, Answer: &ans})
	return err
}

// SendAlways is "Always allow" through the window: the rule saved, the call and every other
// waiting call it matches approved; it returns how many were.
func SendAlways(ctx context.Context, dbPath, sessionID, callID, scope string) (int, error) {
	r, err := request(ctx, dbPath, message{Op: opAlways, SessionID: sessionID, CallID: callID, Scope: scope})
	return r.Approved, err
}

// Registration is a process's link to the window of its database: the window lists the
// calls waiting here and sends the person's answers back. Done is closed when the window
// goes away (or Close is called).
type Registration struct {
	local *Local
	w     *connWriter
	done  chan struct{}

	once    sync.Once
	unwatch func()
	dirty   chan struct{}
}

// Register links this process's inbox to the window that has its database (dbPath) open,
// as origin (OriginRun or OriginACP, and the ACP client's name). It returns ErrNoWindow
// when no window has it open: the process then goes on alone.
func Register(ctx context.Context, dbPath string, local *Local, origin Process) (*Registration, error) {
	c, err := dial(ctx, dbPath)
	if err != nil {
		return nil, err
	}
	w := &connWriter{c: c}
	if err := w.send(message{V: Version, Op: opRegister, Origin: &origin}); err != nil {
		c.Close()
		return nil, fmt.Errorf("register with the window: %w", err)
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 64<<10), maxMessage)
	_ = c.SetReadDeadline(time.Now().Add(dialTimeout))
	if !sc.Scan() {
		c.Close()
		return nil, fmt.Errorf("register with the window: no reply: %w", ErrNoWindow)
	}
	_ = c.SetReadDeadline(time.Time{})
	var r message
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil || replyError(r) != nil {
		c.Close()
		return nil, fmt.Errorf("register with the window: refused: %s", r.Error)
	}
	g := &Registration{local: local, w: w, done: make(chan struct{}), dirty: make(chan struct{}, 1)}
	g.unwatch = local.Approver.Watch(g.Changed)
	go g.push()
	go g.read(sc)
	g.Changed() // calls already waiting
	return g, nil
}

// Done is closed once the window is gone or the registration closed.
func (g *Registration) Done() <-chan struct{} { return g.done }

// Close ends the registration: the window forgets this process's calls.
func (g *Registration) Close() {
	g.once.Do(func() {
		g.unwatch()
		g.w.c.Close()
		close(g.done)
	})
}

// Changed sends the window this process's waiting calls (coalesced; at once).
func (g *Registration) Changed() {
	select {
	case g.dirty <- struct{}{}:
	default:
	}
}

func (g *Registration) push() {
	for {
		select {
		case <-g.done:
			return
		case <-g.dirty:
		}
		list := g.local.Approvals(context.Background())
		if err := g.w.send(message{V: Version, Op: opPending, Approvals: list}); err != nil {
			g.Close()
			return
		}
	}
}

// read takes the window's answers, each answered by this process's Approver, until the
// window goes away.
func (g *Registration) read(sc *bufio.Scanner) {
	defer g.Close()
	for sc.Scan() {
		var m message
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Op != opAnswer || m.Answer == nil {
			continue // the window speaks only answers to a registered process
		}
		go func() {
			reply := message{V: Version, Op: opAnswered, ID: m.ID, OK: true}
			if err := g.local.Answer(context.Background(), *m.Answer, m.Always); err != nil {
				reply = errorReply(opAnswered, m.ID, err)
			}
			_ = g.w.send(reply)
		}()
	}
}

// Dismiss takes an ended run off the inbox through the window.
func Dismiss(ctx context.Context, dbPath, runID string) error {
	_, err := request(ctx, dbPath, message{Op: opDismiss, RunID: runID})
	return err
}

package notify

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/godbus/dbus/v5"
)

// The freedesktop Notifications service (Desktop Notifications Specification 1.2).
const (
	busName   = "org.freedesktop.Notifications"
	busPath   = dbus.ObjectPath("/org/freedesktop/Notifications")
	busIface  = "org.freedesktop.Notifications"
	appName   = "Loopdesk"
	appIcon   = "loopdesk" // the hicolor icon the package installs
	actionKey = "default"  // the action a click on the notification invokes
)

// ErrDisabled is returned by Notify while notifications are turned off.
var ErrDisabled = errors.New("notifications are turned off")

// Kind says what happened to a notification.
type Kind string

const (
	Clicked Kind = "clicked" // the person clicked it (its default action)
	Closed  Kind = "closed"  // it went away: expired, dismissed, or closed by the app
)

// CloseReason is why a notification closed, as the server reports it.
type CloseReason uint32

const (
	ReasonExpired   CloseReason = 1
	ReasonDismissed CloseReason = 2
	ReasonClosed    CloseReason = 3 // by CloseNotification
	ReasonUndefined CloseReason = 4
)

// Event is what happened to one of this Notifier's notifications.
type Event struct {
	ID     uint32
	Key    string // the key given to Notify
	Kind   Kind
	Reason CloseReason // for Closed
}

// Notifier shows notifications and reports clicks. Safe for concurrent use.
type Notifier struct {
	conn    *dbus.Conn
	onEvent func(Event)
	done    chan struct{} // closed when the listener goroutine has returned

	mu      sync.Mutex
	enabled bool
	keys    map[uint32]string // shown and not yet closed: id -> key
}

// Connect opens a private connection to the session bus.
func Connect(onEvent func(Event)) (*Notifier, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("connect to the session bus: %w", err)
	}
	return start(conn, onEvent)
}

// Dial connects to the bus at address (e.g. a private test bus).
func Dial(address string, onEvent func(Event)) (*Notifier, error) {
	conn, err := dbus.Connect(address)
	if err != nil {
		return nil, fmt.Errorf("connect to the bus %s: %w", address, err)
	}
	return start(conn, onEvent)
}

func start(conn *dbus.Conn, onEvent func(Event)) (*Notifier, error) {
	if onEvent == nil {
		onEvent = func(Event) {}
	}
	err := conn.AddMatchSignal(dbus.WithMatchInterface(busIface), dbus.WithMatchObjectPath(busPath))
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("listen for notification signals: %w", err)
	}
	n := &Notifier{conn: conn, onEvent: onEvent, done: make(chan struct{}), enabled: true, keys: map[uint32]string{}}
	signals := make(chan *dbus.Signal, 16)
	conn.Signal(signals)
	go n.listen(signals)
	return n, nil
}

// listen runs until the connection closes (godbus then closes signals).
func (n *Notifier) listen(signals <-chan *dbus.Signal) {
	defer close(n.done)
	for s := range signals {
		if ev, ok := n.event(s); ok {
			n.onEvent(ev)
		}
	}
}

// event turns a signal about one of our notifications into an Event.
func (n *Notifier) event(s *dbus.Signal) (Event, bool) {
	if s.Path != busPath || len(s.Body) < 2 {
		return Event{}, false
	}
	id, ok := s.Body[0].(uint32)
	if !ok {
		return Event{}, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	key, ours := n.keys[id]
	if !ours {
		return Event{}, false
	}
	switch s.Name {
	case busIface + ".ActionInvoked":
		if action, _ := s.Body[1].(string); action == actionKey {
			return Event{ID: id, Key: key, Kind: Clicked}, true
		}
	case busIface + ".NotificationClosed":
		delete(n.keys, id)
		reason, _ := s.Body[1].(uint32)
		return Event{ID: id, Key: key, Kind: Closed, Reason: CloseReason(reason)}, true
	}
	return Event{}, false
}

// SetEnabled turns notifications on or off (the person's setting).
func (n *Notifier) SetEnabled(on bool) {
	n.mu.Lock()
	n.enabled = on
	n.mu.Unlock()
}

// Enabled reports whether Notify shows anything.
func (n *Notifier) Enabled() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.enabled
}

// Notify shows a notification; a click on it is reported with key. It
// returns the server's id for it, or ErrDisabled while turned off.
func (n *Notifier) Notify(ctx context.Context, title, body, key string) (uint32, error) {
	if !n.Enabled() {
		return 0, ErrDisabled
	}
	hints := map[string]dbus.Variant{
		"desktop-entry": dbus.MakeVariant("loopdesk"), // the .desktop file's name: the server shows our icon and name
		"urgency":       dbus.MakeVariant(byte(1)),    // normal
	}
	var id uint32
	// Holding the lock across the call keeps a fast NotificationClosed from
	// arriving before the id is known; the listener waits for it briefly.
	n.mu.Lock()
	defer n.mu.Unlock()
	err := n.conn.Object(busName, busPath).CallWithContext(ctx, busIface+".Notify", 0,
		appName, uint32(0), appIcon, title, body, []string{actionKey, "Open"}, hints, int32(-1)).Store(&id)
	if err != nil {
		return 0, fmt.Errorf("show notification %q: %w", title, err)
	}
	n.keys[id] = key
	return id, nil
}

// CloseNotification withdraws a notification (e.g. the approval was answered
// in the window); a Closed event follows from the server.
func (n *Notifier) CloseNotification(ctx context.Context, id uint32) error {
	err := n.conn.Object(busName, busPath).CallWithContext(ctx, busIface+".CloseNotification", 0, id).Store()
	if err != nil {
		return fmt.Errorf("close notification %d: %w", id, err)
	}
	return nil
}

// Close ends the connection and waits for the listener to return.
func (n *Notifier) Close() error {
	err := n.conn.Close()
	<-n.done
	return err
}

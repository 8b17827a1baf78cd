// Package notify shows desktop notifications through the freedesktop
// Notifications service (org.freedesktop.Notifications on the D-Bus session
// bus: dunst, GNOME Shell, KDE Plasma, notification-daemon, ...) and reports
// what the person did with them.
//
// Contract:
//
//  1. Connect (the session bus) or Dial (a bus address) returns a Notifier
//     owning its own connection; Close ends it and the listener goroutine.
//  2. Notify(ctx, title, body, key) shows a notification whose default action
//     (a click on it) is reported back with key, and returns the server's id.
//     The caller chooses key (e.g. "approval:SESSION:CALL") to find the card
//     to focus. With notifications turned off (SetEnabled(false)) Notify
//     shows nothing and returns 0 and ErrDisabled.
//  3. The onEvent function given to Connect/Dial is called, from the
//     Notifier's own goroutine, once for a click (Clicked, with the key) and
//     once when the notification closes (Closed, with the reason). Signals
//     about notifications this Notifier did not show are ignored. onEvent
//     must not block for long: it delays the next event.
//  4. No notification server on the bus is an error from Notify, never a
//     hang: a call waits at most for ctx.
//
// The lead wires when to notify (an approval waiting, a run finished while
// the window is not focused) and what a click does (focus the window on the
// card named by the key).
package notify

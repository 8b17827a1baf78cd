// Package inbox is everything that waits for the person, across sessions and processes:
// every call waiting for approval in any session or child session of this process (Local),
// and, in the window's process, of every `loopdesk run` and `loopdesk acp` process that
// registered with it over a Unix socket (Hub, Serve), plus the runs that ended in the last
// 24 hours and were not dismissed. An answer goes to whichever process holds the call; the
// Approver there makes the first answer win, exactly once.
//
// The socket (SocketPath) is per database, private to the user (directory 0700, socket
// 0600, each peer's uid checked with SO_PEERCRED); nothing listens on TCP. Its protocol is
// JSON lines, each message carrying Version (proto.go).
package inbox

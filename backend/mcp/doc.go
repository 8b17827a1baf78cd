// Package mcp runs the MCP servers a person configured and offers their tools
// to the agent as tools.Tool values, so they go through the same registry,
// approvals, rows, bounds and Stop as the built-in tools. It uses the official
// Go SDK (github.com/modelcontextprotocol/go-sdk) as a client over stdio,
// streamable HTTP and legacy SSE.
//
// # Configuration
//
// The `mcpServers` format of Claude Desktop, Claude Code and Cursor (Config),
// read from DefaultPath ($XDG_CONFIG_HOME/loopdesk/mcp.json) and any extra
// files by LoadConfig; later files add servers or replace those of the same
// name. Errors name the file and the server. Loading never writes; Save is
// atomic and only called on a person's explicit save. ImportClaudeDesktop
// reads a Claude Desktop file for merging.
//
// # Driving a Manager
//
//  1. cfg, err := LoadConfig(extraFiles...) — a bad file is fatal to the
//     command that asked for it (loopdesk run and mcp list exit 1).
//  2. m := Start(cfg, Options{OnStatus: ...}) returns at once; every enabled
//     server starts in the background, in parallel.
//  3. Optionally m.WaitSettled(ctx): returns when every server is ready,
//     failed or disabled, at most about InitTimeout (10 s) after Start. The
//     CLI waits before its first model request; the window does not.
//  4. m.Tools() before each run (or request): the tools of the servers ready
//     now, named mcp__<server>__<tool> (AssignNames), to add to
//     tools.NewRegistry next to the built-ins. Their schemas are known to
//     compile with the registry's validator (a tool whose inputSchema does not
//     is left out and listed in Status.Skipped).
//  5. m.Statuses(), m.Log(name), m.Names(), m.Restart(name) for Settings;
//     OnStatus reports every change as it happens. After a person saves the
//     config (Save), m.Apply(cfg) stops removed and changed servers and starts
//     new and changed ones, leaving the others running.
//  6. m.Close() when the app (or the headless run) ends: every server stopped,
//     processes reaped.
//
// # Guarantees
//
//   - A server that cannot start, exits before initialize, or does not answer
//     initialize + tools/list within InitTimeout is StateFailed with the reason
//     (exit code, timeout, start error) and the tail of its stderr. The other
//     servers are not affected; a failed server waits for Restart.
//   - A server that exits after being ready is restarted with backoff (500 ms
//     doubling, at most 8 s), at most MaxRestarts (5) times in a row; one that
//     stayed up StableAfter (1 min) gets a fresh budget. States: exited (code)
//     during the backoff, restarting (k of 5) while connecting, failed when
//     the budget is spent.
//   - A call never hangs: to a server that is down it fails within CallWait
//     (2 s) with the reason; a server that dies during a call fails the call at
//     once with its exit code and stderr tail; each call is bounded by the
//     server's timeout_s (default 60 s); cancelling the call's ctx (Stop)
//     returns at once and the SDK sends notifications/cancelled to the server.
//   - Results: text content as is; isError as an error result; image, audio,
//     resource-link and blob content summarised in place ("[image: image/png,
//     1234 bytes]"), text resources included with their URI; structuredContent
//     as JSON when the result has no text; the whole capped at OutputCap
//     (64 KiB, head and tail kept, the cut said), like shell output.
//   - ReadOnly is readOnlyHint only for a server with "trusted": true:
//     annotations are hints from a server, not a guarantee.
//   - Stdio servers run in their own process group with the parent-death
//     signal set (SIGKILL), so they die with the app even when it is killed;
//     stopping one closes its stdin, waits StopGrace (1 s) and kills the
//     group. Their environment is a safe base (PATH, HOME, USER, LOGNAME,
//     SHELL, LANG, LANGUAGE, LC_*, TERM, TZ, TMPDIR, TMP, TEMP, XDG_*, DISPLAY,
//     WAYLAND_DISPLAY) plus their own "env"; nothing else of the app's
//     environment (OPENAI_API_KEY, tokens, LOOPDESK_*) reaches them unless
//     "env" names it as ${VAR}.
//   - Lines a stdio server prints on stdout that are not JSON go to its log
//     instead of breaking the connection. Each server's stderr is kept, the
//     last LogBytes (64 KiB), across restarts.
//   - notifications/tools/list_changed makes the manager list the tools again;
//     the next Tools() call sees them and OnStatus reports them.
//
// Concurrency: all Manager methods are safe for concurrent use; OnStatus is
// called one call at a time from the manager's goroutines and must not block
// or call Close.
package mcp

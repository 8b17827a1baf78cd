// Package acp is `loopdesk acp`: Loopdesk's agent behind the Agent Client Protocol (ACP v1,
// JSON-RPC 2.0 as one JSON object per line on stdin/stdout), so an editor (Zed, JetBrains, any
// ACP client) runs the same loop, approvals, rules, budgets, checkpoints and sandbox as the
// window and the CLI, on the same database.
//
// # Contract
//
//   - stdout carries only JSON-RPC messages, one per line; logs go to stderr.
//   - The ACP sessionId is the Loopdesk session id. session/new makes an ordinary session in
//     the store (visible, continuable and forkable in the window and the CLI);
//     session/load accepts any session of the database, whoever made it, and replays its
//     rows as session/update notifications before it answers.
//   - session/prompt is one run of the runner of a stack.Stack (stack.New, the constructor
//     the window and the CLI use). Its events become session/update notifications in the
//     order the bus delivers them (see updates.go for the mapping); the response comes after
//     the last of them, with the stop reason of StopReason.
//   - Every call the approval policy sends to a person becomes session/request_permission
//     with four options whose names say exactly which rule an "always" answer saves. The
//     answer is recorded on the approval row with By "person:acp". A request the client
//     never answers waits as long as the run may (its time bound ends it).
//   - session/cancel, a second prompt's cancellation and the client going away all cancel
//     the run the way Stop does: every call gets its result and the journal stays
//     consistent. Serve returns when the client closes stdin; the caller then closes the
//     stack, which waits for the cancelled run's last rows.
//   - Bad input never hangs or crashes the agent: a line that is not JSON is answered with a
//     JSON-RPC parse error (-32700), a JSON value that is not a request with an invalid
//     request (-32600), an unknown method with -32601, an unknown session with -32002.
//   - A session the client gives MCP servers runs on a stack of its own (Config.NewStack:
//     the configured servers plus the client's), closed with the session or the connection;
//     the others share Config.Stack.
//   - A second session/prompt on a session replaces the one in flight (the SDK cancels the
//     first request; the new run starts once the old one has ended).
//
// # Where the Go SDK falls short
//
// github.com/coder/acp-go-sdk v0.13.0 logs a line it cannot parse and answers nothing
// (Connection.receive), which leaves a client waiting forever. Serve therefore reads stdin
// itself (wire.go), answers such lines, and hands the SDK only well-formed messages; both
// share one writer so replies never interleave. Everything else is the SDK's.
//
// # Not done here
//
// Audio in prompts. Child sessions of the task tool are followed (children.go); images are
// taken when the configured model sees images; an update_plan call reaches the editor as a
// plan update. docs/acp.md lists the rest.
package acp

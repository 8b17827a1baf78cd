// Package stack builds the one agent stack every front end shares — the window
// (backend/desktop), the command line (backend/cli) and ACP (backend/acp): the tool registry,
// the MCP servers, the checkpoint recorder, the model clients of the configured providers,
// the sandbox, each folder's one watcher, the workspaces, the approver, the hooks and the
// runner, wired once, in dependency order, with nothing closing over a value that does not
// exist yet. The front ends differ only in how they show things and ask the person.
//
// The approval path has no cycle: the runner asks the approver with a request that carries
// its own OnPending notification, so the runner publishes approval_requested itself.
//
// # A front end's duties, in order
//
//  1. Open the database (store.Open) and resolve the configuration (config.Effective, or
//     the window's saved settings).
//  2. New(Config{...}): the model (Providers, Models or Model), the MCP servers, checkpoint
//     options (nil: none), hooks, Respec. New detects the sandbox (unless given), makes the
//     recorder and links what a killed process left (Recorder.Recover), and starts the MCP
//     servers in the background; a run waits for those still starting.
//  3. Subscribe to Runner.Bus() to show events and to answer approvals (Approver.Claim).
//  4. Start runs through the use-case layer (backend/chat): its Config.Spec is the front end's
//     configuration made a spec (config.Resolved.RunSpec and the shell sandbox
//     Stack.Sandbox.Get().Shell(mode, network)); the layer adds the session's own settings, the
//     run's input and the title, and does queue, stop, edit, regenerate and retry.
//  5. Watch a folder through Stack.Watches (tools.Watches.Acquire), never with a watcher of
//     your own: the checkpoints listen to the same one.
//  6. Close, then close the database: Close cancels every run, waits for their rows, stops
//     the MCP servers and the recorder. A stack from WithMCP closes only its runs and servers.
package stack

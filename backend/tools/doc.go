// Package tools holds what the agent may do inside a workspace, and what decides
// whether it may: the tool registry and its built-in tools, the workspace (path
// confinement, shared by reference between a session and its forks), the file
// watcher that keeps the UI's tree current, and the approval policy.
//
// Duties of a caller (the runner), in order, for each tool call the model made:
//
//  1. Ask the Approver (Request). It decides by mode and rules, or asks the person
//     and waits. A denial becomes the tool result (IsError, with the reason).
//  2. Run the approved call through Registry.Run with Decision.Arguments: the person
//     may have edited them, and Run validates them against the schema again.
//  3. Store the result as the call's one tool_result row. (Tools do not report what they
//     changed: backend/checkpoint records it for each call, whatever tool made the change.)
//
// Nothing in this package panics on behalf of a tool or crashes a run: every failure
// comes back as a Result with IsError set and a message meant for the model.
package tools

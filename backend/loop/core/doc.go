// Package core is the agent loop's pure state machine, in the style of etcd's raft:
// Next(state, input) returns the next state and the effects the driver must carry out, in
// order. It never reads a clock, makes an id or does I/O: the time and ids arrive on inputs,
// and it imports only the standard library (deps_test.go lists its dependencies and fails on
// any Loopdesk package or any package that does I/O). Every input a phase does not expect is an
// error, never silently ignored.
//
// Every decision of a run is made here and shown in the golden transcripts of testdata/
// (NAME__STATUS.jsonl in, NAME__STATUS.golden out; -update rewrites them): bounds and stop
// reasons; which calls are answered without running (invalid arguments, loop detection, the
// tool-call budget); which are decided without asking anyone (a tool the run does not offer
// is approved, for the tool runner to answer unknown_tool; in plan mode every tool that is
// not read-only is refused); which approved calls run together (RunTools.Batches: consecutive
// read-only calls); when queued messages are delivered (at a tool boundary); when to compact
// and through which row (CompactionCut, CutAt, over the rows the driver reports on Started
// and Stored); and, after a context_exceeded stop, which exchange was in flight (InFlight)
// and whether to set it aside.
//
// Inputs: Started, ModelResponded, ApprovalDecided, ToolFinished, Compacted, CancelRequested,
// Failed, Ticked, MessageQueued, QueueWithdrawn, Stored. Effects (a closed set): CallModel,
// RequestApproval, RunTools, Compact, Persist, Emit, Done.
//
// The driver is backend/loop's runner; its duties are listed in backend/loop/doc.go.
package core

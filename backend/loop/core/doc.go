// Package core is the agent loop's pure state machine, in the style of etcd's raft:
// Next(state, input) returns the next state and the effects the driver must carry out, in
// order. It never reads a clock, makes an id or does I/O: the time and ids arrive on inputs,
// and it imports only the standard library (deps_test.go lists its dependencies and fails on
// any Loopdesk package or any package that does I/O). Every input a phase does not expect is an
// error, never silently ignored.
//
// Every decision of a run is made here and shown in the golden transcripts of testdata/:
// bounds and stop reasons, which calls are answered without running (invalid arguments, loop
// detection, the tool-call budget), which are approved without asking (a tool the run does
// not offer: the tool runner answers unknown_tool) or refused (plan mode: every tool that is
// not read-only), which approved calls run together (RunTools.Batches), when queued messages
// are delivered (at a tool boundary), when and what to compact, and the recovery after a
// context_exceeded stop.
//
// The driver is backend/loop's runner; its duties are listed in backend/loop/doc.go.
package core

// Package loop is the runner of the agent loop: it drives the pure core, backend/loop/core.
//
// core.Next(state, input) returns the next state and the effects to carry out, and makes
// every decision of a run (its doc.go and golden transcripts). The runner owns one goroutine
// per running session, the only caller of core.Next for it: it feeds the core inputs (the
// answers of its workers, the time, a cancel, the queue's changes) and carries out every
// effect strictly in order — Persist through the run's journal (backend/journal, the one
// persist executor), Emit on the bus (backend/bus), CallModel, RequestApproval, RunTools,
// Compact and FireHook on workers that report back, Done by storing the result and
// publishing run_finished. It never blocks on a person. A run drives three ports (ports.go),
// wrapped by the extensions of Config.Extensions (backend/extend, composed in stack.New),
// and hands task calls to Config.Children (task.Driver). fitness_test.go fails on a runner
// file that compares or computes a budget, assigns an approval mode, or writes rows outside
// the persist executor, and when the package grows past its bounds.
//
// docs/architecture.md tells the runner's duties in full: durable commits (which rows must
// be stored before the runner goes on, and which wait for the next commit), steering and the
// queue, children (the task tool) and the prompts' checks.
package loop

package mcp

// State is where a server is in its life, as the window and `loopdesk mcp
// list` show it.
type State string

const (
	StateStarting   State = "starting"   // started, initialize not answered yet
	StateReady      State = "ready"      // initialized, tools listed
	StateFailed     State = "failed"     // did not start or answer initialize in time, or gave up restarting
	StateExited     State = "exited"     // exited mid-session; a restart follows after a backoff
	StateRestarting State = "restarting" // restart k of MaxRestarts under way
	StateDisabled   State = "disabled"   // "disabled": true; never started
)

// settled reports whether WaitSettled stops waiting for a server in s.
func (s State) settled() bool {
	return s == StateReady || s == StateFailed || s == StateDisabled
}

// Status is one server's health. Tools are the model-facing names of the tools
// it offers now (empty unless ready).
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	State     State  `json:"status"`
	// Reason says why a server is failed, exited or restarting: the start
	// error, "exited with code N before answering initialize", "did not answer
	// initialize within 10s", ...
	Reason     string   `json:"reason"`
	Tools      []string `json:"tools"`
	StderrTail string   `json:"stderr_tail"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	// Attempt is k in "restarting (k of MaxRestarts)"; 0 otherwise.
	Attempt     int  `json:"attempt,omitempty"`
	MaxRestarts int  `json:"max_restarts,omitempty"`
	Trusted     bool `json:"trusted"`
	// Skipped lists tools the server offers that are not offered to the model,
	// with why (an inputSchema that does not compile).
	Skipped []string `json:"skipped,omitempty"`
}

package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/loopdesk/loopdesk/backend/chat"
	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/loop"
	"github.com/loopdesk/loopdesk/backend/mcp"
	"github.com/loopdesk/loopdesk/backend/stack"
	"github.com/loopdesk/loopdesk/backend/store"
)

// Config is what `loopdesk acp` hands the agent: the shared stack and the resolved settings.
type Config struct {
	Stack *stack.Stack
	// Spec is the run of one prompt as the settings make it (model, approval mode, limits,
	// system prompt, sandbox); the use-case layer (backend/chat) puts the session's own
	// approval mode and budgets over it, Flags aside, and the agent sets Plan from the
	// session's mode.
	Spec func(sessionID, workspace, prompt string) loop.RunSpec
	// Flags are the values named on `loopdesk acp`'s command line: they beat a session's own.
	Flags config.Overrides
	// Model names the model new sessions record.
	Model   string
	Version string
	// MCP is the configured servers (Stack's). NewStack, when not nil, builds a stack like
	// Stack whose MCP manager runs the servers given: a session the client passes MCP servers
	// for gets one of its own, with the configured servers and the client's.
	MCP      mcp.Config
	NewStack func(servers mcp.Config) (*stack.Stack, error)
	Logger   *slog.Logger
	// OnInitialize, when not nil, is told the client's name (its clientInfo, "" when it sent
	// none) when it initializes: the command line registers with the window's inbox then.
	OnInitialize func(client string)
}

// Serve speaks ACP on in/out until the client closes in or ctx ends. It then cancels every
// prompt still running and returns once their runs have been told to stop; the caller closes
// the stack, which waits for their last rows.
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	if cfg.Stack == nil || cfg.Spec == nil {
		return errors.New("acp: a stack and a run spec are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	a := &Agent{cfg: cfg, log: cfg.Logger, sessions: map[string]*session{}, prompts: map[string]chan struct{}{}}
	w := &lineWriter{w: out}
	// The SDK starts reading (and handling requests, which use the connection) inside
	// NewAgentSideConnection, before it has stored its own connection field and before a.conn
	// is set: a request arriving at once raced with both. Nothing is read until they are set.
	gate := &gatedReader{r: filterLines(in, w, cfg.Logger), open: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(a, w, gate)
	conn.SetLogger(cfg.Logger)
	a.conn = conn
	close(gate.open)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.stopAll()
	return nil
}

// Agent implements the ACP agent side over a stack. Its methods are called by the SDK, each
// request on its own goroutine.
type Agent struct {
	cfg  Config
	log  *slog.Logger
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*session      // sessions this connection made or loaded
	prompts  map[string]chan struct{} // the running prompt of each session, closed when it returns
	wg       sync.WaitGroup           // running prompts
}

// session is what the connection keeps of a session: the store holds the rest.
type session struct {
	id        string
	workspace string
	plan      bool
	// st runs the session: the shared stack, or its own (own) when the client gave it MCP
	// servers; an own stack is closed with the session or the connection.
	st  *stack.Stack
	own bool
}

var (
	_ sdk.Agent       = (*Agent)(nil)
	_ sdk.AgentLoader = (*Agent)(nil)
)

// ACP error codes beyond JSON-RPC's own.
const codeResourceNotFound = -32002

func notFound(sessionID string) error {
	return &sdk.RequestError{Code: codeResourceNotFound, Message: "Resource not found",
		Data: map[string]string{"sessionId": sessionID, "details": "no Loopdesk session has this id"}}
}

func invalidParams(format string, args ...any) error {
	return sdk.NewInvalidParams(map[string]string{"details": fmt.Sprintf(format, args...)})
}

// Initialize answers with Loopdesk's capabilities. There is no authentication step: the key
// comes from Loopdesk's own configuration, never from the protocol.
func (a *Agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	if a.cfg.OnInitialize != nil {
		client := ""
		if p.ClientInfo != nil {
			client = p.ClientInfo.Name
		}
		a.cfg.OnInitialize(client)
	}
	title := "Loopdesk"
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "loopdesk", Title: &title, Version: a.cfg.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:     true,
			McpCapabilities: sdk.McpCapabilities{Http: true, Sse: true},
			// Images when the configured model takes them (its vision default, by name).
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true, Image: images.SeesImages(a.cfg.Model)},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{}},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is never needed (no method is offered).
func (a *Agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodAuthenticate)
}

// NewSession makes a Loopdesk session in cwd; the client's MCP servers join the configured ones.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	ws, err := checkCwd(p.Cwd)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	st, own, err := a.stackFor(ctx, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	s, err := a.cfg.Stack.DB.CreateSession(ctx, store.NewSession{Workspace: ws, Model: a.cfg.Model})
	if err != nil {
		if own {
			st.Close()
		}
		return sdk.NewSessionResponse{}, fmt.Errorf("create session in %s: %w", ws, err)
	}
	a.remember(&session{id: s.ID, workspace: ws, st: st, own: own})
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(s.ID), Modes: modes(false)}, nil
}

func checkCwd(cwd string) (string, error) {
	if !filepath.IsAbs(cwd) {
		return "", invalidParams("cwd %q is not an absolute path", cwd)
	}
	fi, err := os.Stat(cwd)
	if err != nil {
		return "", invalidParams("cwd: %v", err)
	}
	if !fi.IsDir() {
		return "", invalidParams("cwd %s is not a folder", cwd)
	}
	return filepath.Clean(cwd), nil
}

func lastRunPlanned(ctx context.Context, db *store.DB, sessionID string) bool {
	runs, err := db.ListRuns(ctx, sessionID)
	return err == nil && len(runs) > 0 && runs[len(runs)-1].Mode == store.ModePlan
}

// remember keeps s for the connection. A session loaded again replaces what was kept; a
// stack of its own it had is closed (cancelling what it still ran).
func (a *Agent) remember(s *session) {
	a.mu.Lock()
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.mu.Unlock()
	if old != nil && old.own && old.st != s.st {
		old.st.Close()
	}
}

// chatOf is the use-case layer over the session's stack.
func (a *Agent) chatOf(s *session) *chat.Service {
	return chat.New(chat.Config{Stack: s.st, Flags: a.cfg.Flags, Spec: func(_ context.Context, x store.Session) (loop.RunSpec, error) {
		return a.cfg.Spec(x.ID, x.Workspace, ""), nil
	}})
}

// runnerOf is the runner of a session this connection knows, else the shared one.
func (a *Agent) runnerOf(sessionID string) *loop.Runner {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[sessionID]; s != nil {
		return s.st.Runner
	}
	return a.cfg.Stack.Runner
}

// lookup finds a session: one this connection knows, else any of the database (a client
// may prompt a session it made in an earlier connection without loading it again).
func (a *Agent) lookup(ctx context.Context, id string) (*session, error) {
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s != nil {
		return s, nil
	}
	row, err := a.cfg.Stack.DB.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound(id)
	} else if err != nil {
		return nil, err
	}
	s = &session{id: row.ID, workspace: row.Workspace, plan: lastRunPlanned(ctx, a.cfg.Stack.DB, id), st: a.cfg.Stack}
	a.remember(s)
	return s, nil
}

// Loopdesk's modes as ACP session modes.
const (
	modeExecute = "execute"
	modePlan    = "plan"
)

func modes(plan bool) *sdk.SessionModeState {
	exec := "Runs tools as the approval mode and rules allow."
	planDesc := "Only read-only tools run (enforced by Loopdesk); the agent ends with a plan."
	cur := sdk.SessionModeId(modeExecute)
	if plan {
		cur = modePlan
	}
	return &sdk.SessionModeState{CurrentModeId: cur, AvailableModes: []sdk.SessionMode{
		{Id: modeExecute, Name: "Execute", Description: &exec},
		{Id: modePlan, Name: "Plan", Description: &planDesc},
	}}
}

// SetSessionMode switches between execute and plan for the session's next prompts.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.lookup(ctx, string(p.SessionId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	switch p.ModeId {
	case modeExecute, modePlan:
	default:
		return sdk.SetSessionModeResponse{}, invalidParams("unknown mode %q: Loopdesk's modes are execute and plan", p.ModeId)
	}
	a.mu.Lock()
	s.plan = p.ModeId == modePlan
	a.mu.Unlock()
	return sdk.SetSessionModeResponse{}, nil
}

// Cancel stops the session's running prompt, as Stop does in the window.
func (a *Agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	a.runnerOf(string(p.SessionId)).Cancel(string(p.SessionId))
	return nil
}

// CloseSession cancels the session's run and forgets it on this connection.
func (a *Agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	id := string(p.SessionId)
	a.runnerOf(id).Cancel(id)
	a.mu.Lock()
	s := a.sessions[id]
	delete(a.sessions, id)
	a.mu.Unlock()
	if s != nil && s.own {
		s.st.Close() // waits for the cancelled run's rows, then stops the session's MCP servers
	}
	return sdk.CloseSessionResponse{}, nil
}

// SetSessionConfigOption is not advertised; a client that calls it anyway learns so.
func (a *Agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// stopAll cancels every running prompt (the client is gone), waits until each has returned,
// and closes the sessions' own stacks (their runs' rows written, their MCP servers stopped).
func (a *Agent) stopAll() {
	a.mu.Lock()
	var own []*stack.Stack
	for _, s := range a.sessions {
		if _, running := a.prompts[s.id]; running {
			s.st.Runner.Cancel(s.id)
		}
		if s.own {
			own = append(own, s.st)
		}
	}
	a.mu.Unlock()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		a.log.Error("prompts still running 30s after the client left; closing anyway")
	}
	for _, st := range own {
		st.Close()
	}
}

// gatedReader blocks every Read until open is closed: the channel close orders the
// connection's construction before anything it reads is handled.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

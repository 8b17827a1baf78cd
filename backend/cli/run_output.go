package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/checkpoint"
	"github.com/loopdesk/loopdesk/backend/inbox"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
	"github.com/loopdesk/loopdesk/backend/tools"
)

// runPrinter writes events as they arrive: flat JSON lines, or a readable transcript.
// It is called on the bus's subscriber goroutine only.
type runPrinter struct {
	out, errw io.Writer
	json      bool
	midLine   bool
	warned    map[string]bool
	// denied are the calls whose denial was printed: their error result is the same news.
	denied map[string]bool
	files  runFiles

	mu       sync.Mutex
	finished map[string]chan struct{}
}

func runNewPrinter(out, errw io.Writer, asJSON bool) *runPrinter {
	return &runPrinter{out: out, errw: errw, json: asJSON, warned: map[string]bool{}, denied: map[string]bool{},
		finished: map[string]chan struct{}{}}
}

func (p *runPrinter) done(runID string) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.finished[runID]
	if c == nil {
		c = make(chan struct{})
		p.finished[runID] = c
	}
	return c
}

// waitFor blocks until run_finished of runID was written (or the timeout passes, should the
// bus have been unable to deliver it).
func (p *runPrinter) waitFor(runID string, timeout time.Duration) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-p.done(runID):
	case <-t.C:
	}
}

func (p *runPrinter) print(e bus.Event) {
	if f, ok := e.Payload.(checkpoint.FilesChangedPayload); ok {
		p.files.add(f.Changes)
	}
	if p.json {
		b, err := json.Marshal(e)
		if err != nil {
			fmt.Fprintf(p.errw, "loopdesk run: %v\n", err)
		} else {
			p.out.Write(append(b, '\n'))
		}
	} else if e.ParentCallID == "" {
		p.text(e)
	} else if f, ok := e.Payload.(core.RunFinishedPayload); ok {
		// A child's stream would interleave with its parent's: the text output names its end.
		p.line("[child session %s of call %s: %s]", e.SessionID, e.ParentCallID, f.Status)
	}
	if e.Type == core.EventRunFinished {
		close(p.done(e.RunID))
	}
}

func (p *runPrinter) line(format string, args ...any) {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
	fmt.Fprintf(p.out, format+"\n", args...)
}

func (p *runPrinter) text(e bus.Event) {
	switch pl := e.Payload.(type) {
	case core.DeltaPayload:
		if e.Type == core.EventTextDelta && pl.Text != "" {
			fmt.Fprint(p.out, pl.Text)
			p.midLine = !strings.HasSuffix(pl.Text, "\n")
		}
	case core.AssistantMessagePayload:
		if p.midLine {
			fmt.Fprintln(p.out)
			p.midLine = false
		}
	case core.ToolCallPayload:
		p.line("→ %s %s", pl.Name, core.Cut(string(pl.Arguments), 201))
	case core.ApprovalDecidedPayload:
		if !pl.Approved {
			p.denied[pl.CallID] = true
			msg := "✗ denied by " + pl.By
			if pl.Reason != "" {
				msg += ": " + pl.Reason
			}
			p.line("%s", msg)
		}
	case core.ToolFinishedPayload:
		if p.denied[pl.CallID] {
			delete(p.denied, pl.CallID) // ids repeat across turns on some servers
			return
		}
		mark := "←"
		if pl.IsError {
			mark = "✗"
		}
		lines := strings.Count(strings.TrimRight(pl.Content, "\n"), "\n") + 1
		first, _, _ := strings.Cut(pl.Content, "\n")
		if lines > 1 {
			first = fmt.Sprintf("%s (%d lines)", first, lines)
		}
		where := ""
		if pl.Sandboxed {
			where = " [sandboxed]"
		}
		p.line("%s %s%s: %s", mark, pl.Name, where, core.Cut(first, 201))
	case core.CompactedPayload:
		p.line("… earlier history summarised (through row %d)", pl.ThroughSeq)
	case core.BudgetPayload:
		for _, w := range pl.Warnings {
			if !p.warned[e.RunID+w] {
				p.warned[e.RunID+w] = true
				p.line("! %s budget nearly used", w)
			}
		}
	case core.RunFinishedPayload:
		msg := fmt.Sprintf("■ %s: %d turns, %d tool calls, %d+%d tokens, $%.4f", pl.Status, pl.Turns, pl.ToolCalls,
			pl.InputTokens, pl.OutputTokens, pl.CostUSD)
		if pl.Error != "" {
			msg += " — " + pl.Error
		}
		if p.midLine {
			fmt.Fprintln(p.out)
			p.midLine = false
		}
		fmt.Fprintln(p.errw, msg)
		p.files.write(p.errw)
	}
}

// ByNoTerminal is who denied a call that needed a person when stdin is not a terminal.
const ByNoTerminal = "mode:no-terminal"

// runAsker answers approval requests: on a terminal by asking the person (y/n/a/r), without
// one by denying, since nobody is there to ask.
type runAsker struct {
	in       io.Reader
	errw     io.Writer
	db       *store.DB
	terminal bool
	approver *tools.Approver

	queue chan tools.Pending
	quit  chan struct{}
	// proposals are the hunks of calls waiting in mode review, by call id (review_prompt.go).
	propMu    sync.Mutex
	proposals map[string][]core.ProposedHunk
	stopOnce  sync.Once
	wg        sync.WaitGroup
	// link is the run's link to the window's inbox; answered closes when the call being
	// prompted for is answered elsewhere (run_inbox.go).
	link     *inbox.Link
	curMu    sync.Mutex
	cur      tools.Pending
	answered chan struct{}
	gone     <-chan struct{} // the prompt loop's copy of answered, for read
}

func runNewAsker(in io.Reader, errw io.Writer, db *store.DB, approver *tools.Approver, terminal bool) *runAsker {
	return &runAsker{in: in, errw: errw, db: db, approver: approver, terminal: terminal,
		queue: make(chan tools.Pending, 64), quit: make(chan struct{})}
}

// onEvent takes the calls the runner announces as waiting for a person.
func (a *runAsker) onEvent(e bus.Event) {
	if d, ok := e.Payload.(core.ApprovalDecidedPayload); ok {
		a.decided(e.SessionID, d.CallID)
		return
	}
	p, ok := e.Payload.(core.ApprovalRequestedPayload)
	if !ok {
		return
	}
	a.propose(p)
	a.ask(tools.Pending{SessionID: e.SessionID, Call: tools.Call{ID: p.CallID, Name: p.Name, Arguments: string(p.Arguments)},
		ReadOnly: p.ReadOnly, Sandboxed: p.Sandboxed, Note: p.Note})
}

// ask queues a call for the prompt loop; it never blocks the run for long.
func (a *runAsker) ask(p tools.Pending) {
	if !a.terminal && a.inboxAnswers() {
		return // the window's inbox answers it
	}
	if !a.terminal {
		_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: false, By: ByNoTerminal,
			Reason: "no terminal to ask the person, so ask behaves as deny"})
		return
	}
	select {
	case a.queue <- p:
	case <-a.quit:
	}
}

// start runs the prompt loop. Lines are read by a goroutine that ends at end of input (a
// terminal read cannot be interrupted; the process exiting ends it otherwise).
func (a *runAsker) start() {
	if !a.terminal {
		return
	}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(a.in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-a.quit:
				return
			}
		}
		close(lines)
	}()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			select {
			case p := <-a.queue:
				a.prompt(p, lines)
			case <-a.quit:
				return
			}
		}
	}()
}

func (a *runAsker) read(lines <-chan string) (string, bool) {
	select {
	case l, ok := <-lines:
		return strings.TrimSpace(l), ok
	case <-a.quit:
		return "", false
	case <-a.gone:
		fmt.Fprintln(a.errw, "\n  (answered in the Loopdesk window's inbox)")
		return "", false
	}
}

func (a *runAsker) prompt(p tools.Pending, lines <-chan string) {
	a.gone = a.watch(p)
	defer a.unwatch()
	if !a.waiting(p) {
		return // answered in the inbox before its turn came
	}
	if hs := a.takeProposal(p.Call.ID); len(hs) > 0 {
		a.review(p, hs, lines)
		return
	}
	who := a.childLabel(p.SessionID)
	if p.Note != "" {
		fmt.Fprintf(a.errw, "  (%s)\n", p.Note) // why a skill's allowed-tools did not answer this call
	}
	for {
		fmt.Fprintf(a.errw, "? %sallow %s %s%s\n  [y] yes  [n] no  [a] always allow %s in this session  [r] no, with a reason: ",
			who, p.Call.Name, core.Cut(p.Call.Arguments, 301), shellReach(p), p.Call.Name)
		answer, ok := a.read(lines)
		if !ok {
			_ = a.approver.Decide(p.SessionID, p.Call.ID, tools.Decision{Approved: false, By: tools.ByPerson, Reason: "no answer (end of input)"})
			return
		}
		var d tools.Decision
		switch strings.ToLower(answer) {
		case "y", "yes":
			d = tools.Decision{Approved: true, By: tools.ByPerson}
		case "n", "no":
			d = tools.Decision{Approved: false, By: tools.ByPerson}
		case "a", "always":
			a.always(p)
			return
		case "r", "reason":
			fmt.Fprint(a.errw, "  reason: ")
			reason, _ := a.read(lines)
			d = tools.Decision{Approved: false, By: tools.ByPerson, Reason: reason}
		default:
			fmt.Fprintln(a.errw, "  please answer y, n, a or r")
			continue
		}
		_ = a.approver.Decide(p.SessionID, p.Call.ID, d) // ErrNotPending: the run was cancelled meanwhile
		return
	}
}

// always approves p and saves an allow rule for its tool, only once this answer has won (the
// run may have been cancelled) and before the call runs, so the next call sees the rule.
func (a *runAsker) always(p tools.Pending) {
	answer, err := a.approver.Claim(p.SessionID, p.Call.ID)
	if err != nil {
		return
	}
	d := tools.Decision{Approved: true, By: tools.ByPerson, Reason: "always allowed in this session"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	r, err := a.db.AddRule(ctx, store.NewRule{Tool: p.Call.Name, Effect: store.EffectAllow, Scope: store.ScopeSession, ScopeID: p.SessionID})
	cancel()
	if err != nil {
		fmt.Fprintf(a.errw, "\nloopdesk run: approved, but the rule could not be saved: %v\n", err)
	} else {
		// The person answered (the approval report counts it as asked); the rule is what
		// the answer saved, as the window and the editor record it.
		d.Rule = r.Text()
	}
	answer(d)
}

func (a *runAsker) stop() {
	a.stopOnce.Do(func() { close(a.quit) })
	a.wg.Wait()
}

// shellReach says, for a shell command waiting for a person, whether it would run in the
// sandbox, or that it asks for network (the terminal's approval card).
func shellReach(p tools.Pending) string {
	switch {
	case p.Call.Name != "run_shell_command":
		return ""
	case p.Sandboxed:
		return " (sandboxed)"
	case tools.AsksNetwork(p.Call):
		return " (asks for network)"
	}
	return " (NOT sandboxed: runs with your rights)"
}

// childLabel names the child session asking ("" for the run's own session), so a prompt
// says which child wants to run a call.
func (a *runAsker) childLabel(sessionID string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := a.db.GetSession(ctx, sessionID)
	if err != nil || s.ParentCallID == "" {
		return ""
	}
	return fmt.Sprintf("[child session %q, task call %s] ", s.Title, s.ParentCallID)
}

package acp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/loopdesk/loopdesk/backend/fakeai"
)

// benchReply is the scripted answer both front ends stream.
const benchReply = "The quick brown fox jumps over the lazy dog, then rests."

// BenchmarkFirstChunk: the time from session/prompt to the first agent_message_chunk, as the
// npm client sees it over `loopdesk acp`, against the same scripted reply through
// `loopdesk run --json` to its first text_delta line, in the same run. Reported: acp_ms
// (median), cli_ms (median, from starting the process: what a CLI user waits), cli_run_ms
// (from its run_started line), x_vs_cli = acp_ms / cli_ms (goal <= 1.2) and x_vs_cli_run =
// acp_ms / cli_run_ms (the stricter comparison: the CLI's clock starts after its run row
// exists, the client's before its request is even written).
func BenchmarkFirstChunk(b *testing.B) {
	e := newEnv(b)
	n := b.N
	// A new session per prompt, as each `loopdesk run` below makes one.
	steps := []step{{"op": "initialize"}}
	for i := 0; i < n; i++ {
		e.srv.Enqueue(fakeai.Text(benchReply))
		steps = append(steps, step{"op": "new", "cwd": e.ws}, step{"op": "prompt", "text": fmt.Sprintf("say it %d", i)})
	}
	b.ResetTimer()
	p := e.start(plan{Steps: steps}, "--approve", "auto")
	acp := acpFirstChunks(b, p.finish())
	cli, cliRun := make([]float64, 0, n), make([]float64, 0, n)
	for i := 0; i < n; i++ {
		e.srv.Enqueue(fakeai.Text(benchReply))
		total, run := cliFirstDelta(b, e)
		cli, cliRun = append(cli, total), append(cliRun, run)
	}
	b.StopTimer()
	if len(acp) != n {
		b.Fatalf("%d prompts gave %d first chunks", n, len(acp))
	}
	a, c := median(acp), median(cli)
	b.ReportMetric(a, "acp_ms")
	b.ReportMetric(c, "cli_ms")
	b.ReportMetric(median(cliRun), "cli_run_ms")
	b.ReportMetric(a/c, "x_vs_cli")
	b.ReportMetric(a/median(cliRun), "x_vs_cli_run")
}

// acpFirstChunks: per prompt, from the client sending it to its first agent_message_chunk.
func acpFirstChunks(b *testing.B, evs []event) []float64 {
	var out []float64
	sent := -1.0
	for _, ev := range evs {
		switch {
		case ev.Ev == "send" && ev.Op == "prompt":
			sent = ev.MS
		case ev.Ev == "update" && ev.Update.SessionUpdate == "agent_message_chunk" && sent >= 0:
			out = append(out, ev.MS-sent)
			sent = -1
		}
	}
	return out
}

// cliFirstDelta runs `loopdesk run --json` and times its first text_delta line, from the
// process's start and from its run_started line.
func cliFirstDelta(b *testing.B, e *env) (total, fromRun float64) {
	cmd := exec.Command(loopdeskBin, append([]string{"run"}, e.flags("--approve", "auto", "--json", "--workspace", e.ws, "say it")...)...)
	cmd.Env, cmd.Dir = e.environ(), e.ws
	out, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	var runAt time.Time
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var ev struct{ Type string }
		_ = json.Unmarshal(sc.Bytes(), &ev)
		switch ev.Type {
		case "run_started":
			runAt = time.Now()
		case "text_delta":
			now := time.Now()
			total, fromRun = ms(now.Sub(start)), ms(now.Sub(runAt))
			for sc.Scan() { // let it finish
			}
			return total, fromRun
		}
	}
	b.Fatal("loopdesk run --json printed no text_delta")
	return 0, 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

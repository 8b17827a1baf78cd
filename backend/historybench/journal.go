package historybench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/loopdesk/loopdesk/backend/store"
)

// JournalVersion names what Build writes: a cached journal built by another version is built
// again. Raise it with any change to what Build writes.
const JournalVersion = 3

// Spec sizes a journal. Full is the bench's; Tiny is the same shape at a size make test can
// afford.
type Spec struct {
	Name         string `json:"name"`
	Sessions     int    `json:"sessions"`       // in all, the named ones below included
	BigRows      int    `json:"big_rows"`       // the long-lived session
	LongSessions int    `json:"long_sessions"`  // sessions of LongRows rows
	LongRows     int    `json:"long_rows"`      //
	CompactEvery int    `json:"compact_every"`  // rows between compaction summaries in the long-lived one
	OutputEvery  int    `json:"output_every"`   // in the long-lived session one step in OutputEvery has a large tool output (log-uniform up to MaxOutput)
	RestEvery    int    `json:"rest_every"`     // the same in the sessions of fewer than 200 rows (none in those of LongRows: their next request carries them whole)
	MaxOutput    int    `json:"max_output"`     // bytes
	Images       int    `json:"images"`         // sessions whose person sent an image
	Forks        int    `json:"forks"`          // sessions forked from another at a row
	Children     int    `json:"children"`       // child sessions of a task call
	MaxSmallRows int    `json:"max_small_rows"` // the rest: 20 to about this many rows, most near 20
}

// Full is the bench's journal: 1,000 sessions of more than 2 GB, most under 200 rows, four
// of 10,000, one of 100,000 with outputs up to 1 MiB and compaction summaries along it.
var Full = Spec{Name: "full", Sessions: 1000, BigRows: 100_000, LongSessions: 4, LongRows: 10_000, CompactEvery: 400,
	OutputEvery: 3, RestEvery: 16, MaxOutput: 1 << 20, Images: 40, Forks: 30, Children: 30, MaxSmallRows: 200}

// Tiny has every kind of session Full has, in a few megabytes.
var Tiny = Spec{Name: "tiny", Sessions: 30, BigRows: 1_000, LongSessions: 2, LongRows: 200, CompactEvery: 100,
	OutputEvery: 10, RestEvery: 20, MaxOutput: 64 << 10, Images: 3, Forks: 3, Children: 3, MaxSmallRows: 60}

// Journal is a built journal: its database, the folder its sessions work in, and the
// sessions the benches open by id. Titles are unique, so the window's bench finds them in
// the session list by title.
type Journal struct {
	Version   int    `json:"version"`
	Spec      Spec   `json:"spec"`
	Path      string `json:"path"`
	Workspace string `json:"workspace"`
	Big       string `json:"big"`   // BigRows rows, titled BigTitle
	Small     string `json:"small"` // 20 rows, SmallTitle
	Ten       string `json:"ten"`   // 10 rows, TenTitle
	// Tail holds as many rows as the big session's last compaction left to send (TailRows),
	// with no history before them: continuing either should cost the same.
	Tail     string   `json:"tail"`
	TailRows int64    `json:"tail_rows"`
	Long     []string `json:"long"` // LongRows rows each, LongTitle(i)
	Bytes    int64    `json:"bytes"`
	Rows     int64    `json:"rows"`
	BuildSec float64  `json:"build_seconds"`
}

// Titles of the sessions the benches open.
const (
	BigTitle   = "the long one"
	SmallTitle = "twenty rows"
	TenTitle   = "ten rows"
	TailTitle  = "the last stretch alone"
)

// LongTitle is the title of the i-th session of LongRows rows (from 1).
func LongTitle(i int) string { return fmt.Sprintf("ten thousand rows %c", 'A'+i-1) }

// Cached returns the journal of spec kept under dir (build/bench-journal), building it
// first when no journal of this version and spec is there. Two processes asking at once
// build it once. The journal must not be written to: benches copy it (CopyTo).
func Cached(ctx context.Context, dir string, spec Spec) (Journal, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Journal{}, err
	}
	key := fmt.Sprintf("v%d-%s", JournalVersion, spec.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Journal{}, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, key+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return Journal{}, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return Journal{}, fmt.Errorf("lock the bench journal: %w", err)
	}
	// Built in place (the sessions name their folder by its path): journal.json, written
	// last, says the build finished.
	final := filepath.Join(dir, key)
	if j, err := readJournal(final); err == nil && j.Version == JournalVersion && j.Spec == spec {
		return j, nil
	}
	if err := os.RemoveAll(final); err != nil {
		return Journal{}, err
	}
	if _, err := Build(ctx, final, spec); err != nil {
		return Journal{}, err
	}
	return readJournal(final)
}

// readJournal reads dir/journal.json.
func readJournal(dir string) (Journal, error) {
	var j Journal
	b, err := os.ReadFile(filepath.Join(dir, "journal.json"))
	if err != nil {
		return j, err
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("%s: %w", dir, err)
	}
	return j, nil
}

// CopyTo copies the journal's database into dir, for a bench that writes to it; the copy's
// sessions still work in the journal's folder.
func (j Journal) CopyTo(dir string) (Journal, error) {
	src, err := os.Open(j.Path)
	if err != nil {
		return j, err
	}
	defer src.Close()
	path := filepath.Join(dir, "loopdesk.db")
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return j, err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return j, fmt.Errorf("copy the bench journal: %w", err)
	}
	j.Path = path
	return j, dst.Close()
}

// Build writes a journal of spec into dir (which must not exist) through the store's own
// calls, as runs of the agent write it: sessions created, runs started, rows appended and
// runs finished, forks taken with Fork, children created under a task call, images stored
// as blobs. No SQL. It writes dir/loopdesk.db, dir/ws (the sessions' folder) and
// dir/journal.json.
func Build(ctx context.Context, dir string, spec Spec) (Journal, error) {
	t0 := time.Now()
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Journal{}, err
	}
	j := Journal{Version: JournalVersion, Spec: spec, Path: filepath.Join(dir, "loopdesk.db"), Workspace: filepath.Join(dir, "ws")}
	if err := os.MkdirAll(j.Workspace, 0o755); err != nil {
		return j, err
	}
	// A folder the tool round's list_dir finds something in.
	if err := os.WriteFile(filepath.Join(j.Workspace, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		return j, err
	}
	db, err := store.Open(ctx, j.Path)
	if err != nil {
		return j, err
	}
	g := &gen{ctx: ctx, db: db, ws: j.Workspace, spec: spec, r: rand.New(rand.NewPCG(36, JournalVersion)), tasks: map[string]string{}}
	err = g.all(&j)
	if err == nil {
		_, err = db.Search(ctx, "zebra", 1) // whatever an append left to index is indexed now, not in a bench
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return j, fmt.Errorf("build the bench journal: %w", err)
	}
	st, err := os.Stat(j.Path)
	if err != nil {
		return j, err
	}
	j.Bytes, j.BuildSec = st.Size(), time.Since(t0).Seconds()
	b, _ := json.MarshalIndent(j, "", "  ")
	return j, os.WriteFile(filepath.Join(dir, "journal.json"), b, 0o644)
}

type gen struct {
	ctx   context.Context
	db    *store.DB
	ws    string
	spec  Spec
	r     *rand.Rand
	rows  int64
	call  int
	lines []string          // the lines large outputs are made of
	task  string            // the last task call written
	tasks map[string]string // session id -> its task call
}

// all writes the sessions oldest first: the rest of the journal, then the sessions the
// benches open, so that these are the newest and head the session list.
func (g *gen) all(j *Journal) error {
	named := 5 + g.spec.LongSessions // big, tail, small, ten, the long ones
	rest := g.spec.Sessions - named - g.spec.Forks - g.spec.Children
	if rest < 1 {
		return fmt.Errorf("%d sessions cannot hold the %d named ones, %d forks and %d children", g.spec.Sessions, named, g.spec.Forks, g.spec.Children)
	}
	var others []string
	for i := range rest {
		n := 20 + g.r.IntN(9)*g.r.IntN(max(1, (g.spec.MaxSmallRows-20)/8)) // most near 20, a few near the most
		id, err := g.session(fmt.Sprintf("session %d", i+1), n, shape{runs: 1 + n/40, outputs: g.spec.RestEvery, image: i < g.spec.Images, task: i < g.spec.Children})
		if err != nil {
			return err
		}
		others = append(others, id)
	}
	for i := range g.spec.Children {
		if err := g.child(others[i], i); err != nil {
			return err
		}
	}
	for i := range g.spec.Forks {
		parent := others[g.spec.Children+i%(len(others)-g.spec.Children)]
		if err := g.fork(parent); err != nil {
			return err
		}
	}
	var err error
	bigShape := shape{compact: g.spec.CompactEvery, runs: g.spec.BigRows / 1000, outputs: g.spec.OutputEvery, image: true, task: true}
	if j.Big, err = g.session(BigTitle, g.spec.BigRows, bigShape); err != nil {
		return err
	}
	if err := g.child(j.Big, g.spec.Children); err != nil {
		return err
	}
	stretch, err := g.db.RequestRows(g.ctx, j.Big)
	if err != nil {
		return err
	}
	j.TailRows = int64(len(stretch))
	if j.Tail, err = g.session(TailTitle, len(stretch), shape{runs: max(1, len(stretch)/40), outputs: g.spec.OutputEvery}); err != nil {
		return err
	}
	for i := 1; i <= g.spec.LongSessions; i++ {
		id, err := g.session(LongTitle(i), g.spec.LongRows, shape{runs: g.spec.LongRows / 200, image: i == 1})
		if err != nil {
			return err
		}
		j.Long = append(j.Long, id)
	}
	if j.Ten, err = g.session(TenTitle, 10, shape{runs: 1}); err != nil {
		return err
	}
	if j.Small, err = g.session(SmallTitle, 20, shape{runs: 1}); err != nil {
		return err
	}
	j.Rows = g.rows
	return nil
}

// shape is how a session's rows are written.
type shape struct {
	compact int  // a compaction summary after each compact rows (none when 0)
	runs    int  // the rows are appended by this many runs
	outputs int  // one step in outputs has a large tool output (none when 0)
	image   bool // an image in the person's first message
	task    bool // the second step is a task call (the parent of a child session)
}

// session writes a session of n rows in runs: each started, appended to and finished
// through the store.
func (g *gen) session(title string, n int, sh shape) (string, error) {
	s, err := g.db.CreateSession(g.ctx, store.NewSession{Title: title, Workspace: g.ws, Model: "fake-model"})
	if err != nil {
		return "", err
	}
	rowsPerRun := max(4, n/max(1, sh.runs))
	seq, since, steps := 0, 0, 0
	for seq < n {
		run, _, err := g.db.StartRunWith(g.ctx, store.NewRun{SessionID: s.ID, Model: "fake-model", Limits: []byte(`{}`)})
		if err != nil {
			return "", err
		}
		var batch []store.NewChunk
		for len(batch) < rowsPerRun && seq < n {
			var rows []store.NewChunk
			switch {
			case sh.compact > 0 && since >= sh.compact && seq+1 < n:
				rows, since = []store.NewChunk{{Kind: store.KindSummary, Payload: store.SummaryPayload{
					Text: "What was done so far: " + sentence(g.r, 200), ThroughSeq: int64(seq)}}}, 0
			case n-seq < 4:
				rows = []store.NewChunk{{Kind: store.KindUser, Payload: store.UserPayload{Text: sentence(g.r, 10)}}}
			default:
				if rows, err = g.step(steps, sh.outputs, sh.image && steps == 0, sh.task && steps == 1); err != nil {
					return "", err
				}
				steps++
			}
			batch, seq, since = append(batch, rows...), seq+len(rows), since+len(rows)
		}
		if _, err := g.db.Append(g.ctx, s.ID, run.ID, batch...); err != nil {
			return "", fmt.Errorf("session %q: %w", title, err)
		}
		if _, _, err := g.db.FinishRun(g.ctx, run.ID, store.RunResult{Status: "completed", Output: "done"}); err != nil {
			return "", err
		}
	}
	g.rows += int64(n)
	if sh.task {
		g.tasks[s.ID] = g.task
	}
	return s.ID, nil
}

// step is one turn of an agent: the person's message, a tool call, its result, the answer.
func (g *gen) step(i, outputs int, withImage, task bool) ([]store.NewChunk, error) {
	g.call++
	id := fmt.Sprintf("call_%d", g.call)
	user := store.UserPayload{Text: sentence(g.r, 20)}
	if withImage {
		ref, err := g.image()
		if err != nil {
			return nil, err
		}
		user.Images = []store.ImageRef{ref}
	}
	name, args := "search_text", fmt.Sprintf(`{"pattern":%q}`, sentence(g.r, 2))
	if task {
		name, args = "task", fmt.Sprintf(`{"description":"look into it","prompt":%q}`, sentence(g.r, 12))
		g.task = id
	}
	out := sentence(g.r, 80)
	if outputs > 0 && i%outputs == outputs-1 {
		out = g.output()
	}
	return []store.NewChunk{
		{Kind: store.KindUser, Payload: user},
		{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: sentence(g.r, 15),
			ToolCalls: []store.ToolCall{{ID: id, Name: name, Arguments: args}},
			Usage:     &store.Usage{InputTokens: 1000, OutputTokens: 50, CostUSD: 0.001}}},
		{Kind: store.KindToolResult, Payload: store.ToolResultPayload{CallID: id, Name: name, Content: out}},
		{Kind: store.KindAssistant, Payload: store.AssistantPayload{Text: sentence(g.r, 40), Usage: &store.Usage{InputTokens: 1100, OutputTokens: 80}}},
	}, nil
}

// output is a large tool output: lines of a log, its size log-uniform from 4 KiB to
// MaxOutput, so most are tens of kilobytes and a few are a megabyte.
func (g *gen) output() string {
	if g.lines == nil {
		for range 256 {
			g.lines = append(g.lines, sentence(g.r, 14))
		}
	}
	lo, hi := math.Log(4096), math.Log(float64(max(4096, g.spec.MaxOutput)))
	size := int(math.Exp(lo + (hi-lo)*g.r.Float64()))
	var sb strings.Builder
	sb.Grow(size + 128)
	for n := 0; sb.Len() < size; n++ {
		fmt.Fprintf(&sb, "%d: %s\n", n, g.lines[g.r.IntN(len(g.lines))])
	}
	return sb.String()[:size]
}

// image stores a PNG of noise (a screenshot does not compress much either) and returns its
// reference for a message.
func (g *gen) image() (store.ImageRef, error) {
	w, h := 320+g.r.IntN(320), 200+g.r.IntN(200)
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			im.Set(x, y, color.RGBA{uint8(g.r.IntN(256)), uint8(x), uint8(y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		return store.ImageRef{}, err
	}
	hash, err := g.db.PutBlob(g.ctx, store.Blob{MIME: "image/png", Width: w, Height: h, Data: buf.Bytes()})
	if err != nil {
		return store.ImageRef{}, err
	}
	return store.ImageRef{Hash: hash, MIME: "image/png", Width: w, Height: h, Name: "screenshot.png"}, nil
}

// child writes a child session under the parent's task call.
func (g *gen) child(parent string, i int) error {
	call, ok := g.tasks[parent]
	if !ok {
		return errors.New("child: the parent has no task call")
	}
	s, err := g.db.CreateSession(g.ctx, store.NewSession{Title: fmt.Sprintf("look into it %d", i+1), Workspace: g.ws,
		Model: "fake-model", ParentID: parent, ParentCallID: call})
	if err != nil {
		return err
	}
	return g.fill(s.ID, 4*(2+g.r.IntN(8)))
}

// fork forks parent at a row between two steps and goes on in the fork.
func (g *gen) fork(parent string) error {
	s, err := g.db.Fork(g.ctx, parent, 4*int64(1+g.r.IntN(4)))
	if err != nil {
		return err
	}
	return g.fill(s.ID, 4*(1+g.r.IntN(6)))
}

// fill appends n rows (a multiple of 4) of steps to a session in one run.
func (g *gen) fill(id string, n int) error {
	run, _, err := g.db.StartRunWith(g.ctx, store.NewRun{SessionID: id, Model: "fake-model", Limits: []byte(`{}`)})
	if err != nil {
		return err
	}
	var batch []store.NewChunk
	for k := 0; len(batch) < n; k++ {
		rows, err := g.step(k, g.spec.RestEvery, false, false)
		if err != nil {
			return err
		}
		batch = append(batch, rows...)
	}
	if _, err := g.db.Append(g.ctx, id, run.ID, batch...); err != nil {
		return err
	}
	g.rows += int64(len(batch))
	_, _, err = g.db.FinishRun(g.ctx, run.ID, store.RunResult{Status: "completed", Output: "done"})
	return err
}

var words = strings.Fields(`the a to of and in is it for on that with as this file test go build error function
	return value module package import struct interface method string int slice map channel goroutine context
	database sqlite query index table row column migration schema transaction commit rollback journal wal
	fork session search snippet highlight rank token budget cost model prompt cache approval deny allow
	workspace folder path symlink glob grep shell command process signal kill restart crash repair zebra`)

func sentence(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())]) // common words hit many rows
	}
	return sb.String()
}

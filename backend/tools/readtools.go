package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// Caps that keep one tool result readable for the model and bounded in memory.
const (
	readOutputCap   = 256 << 10 // bytes of numbered lines read_file returns
	readDefaultLine = 2000      // lines read_file returns by default
	lineCap         = 2000      // characters kept of one long line
	listCap         = 1000      // entries list_dir and find_files return
	searchFileCap   = 5 << 20   // files larger than this are not searched
	sniffLen        = 8 << 10   // bytes inspected to call a file binary
)

// ---- read_file

type readFileArgs struct {
	Path   string `json:"path" jsonschema:"description=File path relative to the workspace root"`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=1,description=First line to return (1-based; default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,description=Maximum number of lines to return (default 2000)"`
}

func runReadFile(ctx context.Context, ws *Workspace, a readFileArgs, _ func(string)) Result {
	_, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("read_file %s: %v", a.Path, err)
	}
	f, err := ws.fsroot.Open(rel)
	if err != nil {
		return errorf("read_file %s: %v", a.Path, cleanErr(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return errorf("read_file %s: %v", a.Path, cleanErr(err))
	}
	if fi.IsDir() {
		return errorf("read_file %s: is a directory; use list_dir", a.Path)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(sniffLen)
	if looksBinary(head) {
		return errorf("read_file %s: refusing to read a binary file (%d bytes)", a.Path, fi.Size())
	}
	first := max(a.Offset, 1)
	limit := a.Limit
	if limit == 0 {
		limit = readDefaultLine
	}
	var b strings.Builder
	n, shown, last := 0, 0, 0
	truncated := false
	for {
		if ctx.Err() != nil {
			return errorf("read_file %s: %v", a.Path, ctx.Err())
		}
		line, err := br.ReadString('\n')
		if line == "" && err != nil {
			if !errors.Is(err, io.EOF) {
				return errorf("read_file %s: %v", a.Path, cleanErr(err))
			}
			break
		}
		n++
		if n < first || truncated {
			continue
		}
		if shown == limit || b.Len() >= readOutputCap {
			truncated = true
			continue
		}
		line = strings.TrimRight(line, "\r\n")
		if len(line) > lineCap {
			line = cutRunes(line, lineCap) + " …[line cut]"
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, line)
		shown++
		last = n
	}
	meta := Meta{Truncated: truncated}
	switch {
	case n == 0:
		return Result{Content: fmt.Sprintf("(%s is empty)", a.Path), Meta: meta}
	case shown == 0:
		return Result{Content: fmt.Sprintf("(%s has %d lines; offset %d is past the end)", a.Path, n, first), Meta: meta}
	case truncated:
		fmt.Fprintf(&b, "(showing lines %d-%d of %d; pass offset=%d to read more)\n", first, last, n, last+1)
	}
	return Result{Content: b.String(), Meta: meta}
}

// looksBinary calls data binary when it holds a NUL byte or is not UTF-8 (allowing
// for a rune cut at the end of the sample).
func looksBinary(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	for i := 0; i < 3 && len(data) > 0 && !utf8.Valid(data); i++ {
		data = data[:len(data)-1]
	}
	return !utf8.Valid(data)
}

func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// cleanErr strips the path from *PathError: the tool's own message already names the
// path as the model gave it, and the internal relative form would only confuse.
func cleanErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ---- list_dir

type listDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"description=Folder relative to the workspace root (default: the root)"`
}

func runListDir(_ context.Context, ws *Workspace, a listDirArgs, _ func(string)) Result {
	if a.Path == "" {
		a.Path = "."
	}
	abs, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("list_dir %s: %v", a.Path, err)
	}
	entries, err := fs.ReadDir(ws.fsroot.FS(), slashRel(rel))
	if err != nil {
		return errorf("list_dir %s: %v", a.Path, cleanErr(err))
	}
	var b strings.Builder
	shown := 0
	for _, e := range entries {
		if shown == listCap {
			break
		}
		shown++
		name := e.Name()
		switch {
		case e.IsDir():
			b.WriteString(name + "/\n")
		case e.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(filepath.Join(abs, name))
			fmt.Fprintf(&b, "%s -> %s\n", name, target)
		default:
			size := int64(-1)
			if fi, err := e.Info(); err == nil {
				size = fi.Size()
			}
			fmt.Fprintf(&b, "%s (%d bytes)\n", name, size)
		}
	}
	meta := Meta{}
	if len(entries) == 0 {
		return Result{Content: fmt.Sprintf("(%s is empty)", a.Path), Meta: meta}
	}
	if len(entries) > shown {
		meta.Truncated = true
		fmt.Fprintf(&b, "(%d more entries not shown)\n", len(entries)-shown)
	}
	return Result{Content: b.String(), Meta: meta}
}

func slashRel(rel string) string {
	if rel == "" {
		return "."
	}
	return strings.ReplaceAll(rel, string(os.PathSeparator), "/")
}

// underStart is p relative to the folder a search started from: globs are matched
// against it, while results are shown relative to the workspace root.
func underStart(start, p string) string {
	if start == "." || start == p {
		return p
	}
	return strings.TrimPrefix(p, start+"/")
}

// ---- find_files

type findFilesArgs struct {
	Pattern string `json:"pattern" jsonschema:"description=Glob such as *.go or src/**/*_test.go; a pattern without / matches file names at any depth"`
	Path    string `json:"path,omitempty" jsonschema:"description=Folder to search from, relative to the workspace root (default: the root)"`
}

func runFindFiles(ctx context.Context, ws *Workspace, a findFilesArgs, _ func(string)) Result {
	if err := checkGlob(a.Pattern); err != nil {
		return errorf("find_files: %v", err)
	}
	if a.Path == "" {
		a.Path = "."
	}
	_, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("find_files %s: %v", a.Path, err)
	}
	start := slashRel(rel)
	var found []string
	more := false
	err = walkWorkspace(ctx, ws, start, func(p string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		if !matchGlob(a.Pattern, underStart(start, p)) {
			return nil
		}
		if len(found) == listCap {
			more = true
			return ErrStopWalk
		}
		found = append(found, p)
		return nil
	})
	if err != nil {
		return errorf("find_files %s: %v", a.Path, cleanErr(err))
	}
	if len(found) == 0 {
		return Result{Content: fmt.Sprintf("no files match %q under %s", a.Pattern, a.Path)}
	}
	sort.Strings(found)
	content := strings.Join(found, "\n") + "\n"
	if more {
		content += fmt.Sprintf("(stopped after %d files; narrow the pattern)\n", listCap)
	}
	return Result{Content: content, Meta: Meta{Truncated: more}}
}

// ---- search_text

type searchTextArgs struct {
	Pattern         string `json:"pattern" jsonschema:"description=Regular expression (Go RE2 syntax)"`
	Path            string `json:"path,omitempty" jsonschema:"description=File or folder to search, relative to the workspace root (default: the root)"`
	Glob            string `json:"glob,omitempty" jsonschema:"description=Only search files matching this glob, e.g. *.go"`
	CaseInsensitive bool   `json:"case_insensitive,omitempty"`
	MaxMatches      int    `json:"max_matches,omitempty" jsonschema:"minimum=1,maximum=2000,description=Stop after this many matching lines (default 200)"`
}

func runSearchText(ctx context.Context, ws *Workspace, a searchTextArgs, _ func(string)) Result {
	expr := a.Pattern
	if a.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return errorf("search_text: bad regular expression: %v", err)
	}
	if a.Glob != "" {
		if err := checkGlob(a.Glob); err != nil {
			return errorf("search_text: %v", err)
		}
	}
	limit := a.MaxMatches
	if limit == 0 {
		limit = 200
	}
	if a.Path == "" {
		a.Path = "."
	}
	_, rel, err := ws.open(a.Path)
	if err != nil {
		return errorf("search_text %s: %v", a.Path, err)
	}
	var b strings.Builder
	matches := 0
	more := false
	start := slashRel(rel)
	err = walkWorkspace(ctx, ws, start, func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || (a.Glob != "" && !matchGlob(a.Glob, underStart(start, p))) {
			return nil
		}
		hit, stop := searchFile(ws, p, re, limit-matches, &b)
		matches += hit
		if stop {
			more = true
			return ErrStopWalk
		}
		return nil
	})
	if err != nil {
		return errorf("search_text %s: %v", a.Path, cleanErr(err))
	}
	meta := Meta{Truncated: more}
	if matches == 0 {
		return Result{Content: fmt.Sprintf("no matches for %q under %s", a.Pattern, a.Path), Meta: meta}
	}
	if more {
		fmt.Fprintf(&b, "(stopped after %d matches; narrow the search)\n", matches)
	}
	return Result{Content: b.String(), Meta: meta}
}

// searchFile appends up to budget matching lines of one file; stop reports that
// the budget ran out with more matches left.
func searchFile(ws *Workspace, rel string, re *regexp.Regexp, budget int, b *strings.Builder) (hits int, stop bool) {
	f, err := ws.fsroot.Open(rel)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() > searchFileCap {
		return 0, false
	}
	br := bufio.NewReaderSize(f, 64<<10)
	if head, _ := br.Peek(sniffLen); looksBinary(head) {
		return 0, false
	}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), searchFileCap)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !re.MatchString(line) {
			continue
		}
		if hits == budget {
			return hits, true
		}
		if len(line) > 500 {
			line = cutRunes(line, 500) + " …"
		}
		fmt.Fprintf(b, "%s:%d: %s\n", rel, n, line)
		hits++
	}
	return hits, false
}

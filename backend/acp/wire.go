package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// maxLine is the longest line accepted, as in the SDK (its scanner's limit); a longer line
// is answered with a parse error and skipped.
const maxLine = 10 << 20

// lineWriter writes whole lines under one lock: the SDK's replies and notifications and the
// errors wire.go answers itself share stdout, and a line must never be cut by another.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// wireError is a JSON-RPC error response this package writes itself.
type wireError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	} `json:"error"`
}

func (l *lineWriter) writeError(id json.RawMessage, code int, msg, detail string) {
	e := wireError{JSONRPC: "2.0", ID: id}
	if len(e.ID) == 0 {
		e.ID = json.RawMessage("null")
	}
	e.Error.Code, e.Error.Message = code, msg
	if detail != "" {
		e.Error.Data = map[string]string{"details": detail}
	}
	b, _ := json.Marshal(e) // only strings and raw JSON that was checked
	_, _ = l.Write(append(b, '\n'))
}

// probe is the shape every JSON-RPC message has; a line that does not decode into it is
// not a message the SDK can route.
type probe struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Result json.RawMessage  `json:"result"`
	Error  json.RawMessage  `json:"error"`
}

// checkLine says whether line may go to the SDK; otherwise it writes the error the client
// is owed (JSON-RPC 2.0 §5.1: parse error and invalid request answer with id null unless
// the id could be read).
func checkLine(line []byte, out *lineWriter, log *slog.Logger) bool {
	if !json.Valid(line) {
		log.Warn("answered a line that is not JSON with a parse error", "bytes", len(line))
		out.writeError(nil, -32700, "Parse error", "the line is not valid JSON")
		return false
	}
	var p probe
	if err := json.Unmarshal(line, &p); err != nil {
		// Valid JSON of the wrong shape: an array (batches are not part of ACP), a number,
		// or an object whose method or id has the wrong type.
		var id json.RawMessage
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) == nil && validID(obj["id"]) {
			id = obj["id"]
		}
		out.writeError(id, -32600, "Invalid request", "not a JSON-RPC request object: "+err.Error())
		return false
	}
	if p.Method == "" && (p.ID == nil || (p.Result == nil && p.Error == nil)) {
		var id json.RawMessage
		if p.ID != nil && validID(*p.ID) {
			id = *p.ID
		}
		out.writeError(id, -32600, "Invalid request", "a request needs a method")
		return false
	}
	return true
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// filterLines returns what the SDK reads: the lines of in that are JSON-RPC messages. It
// answers the rest itself. The returned reader ends when in does.
func filterLines(in io.Reader, out *lineWriter, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := readLine(br)
			if len(bytes.TrimSpace(line)) > 0 {
				if errors.Is(err, errLineTooLong) {
					out.writeError(nil, -32700, "Parse error", "the line is longer than 10 MiB")
				} else if checkLine(line, out, log) {
					if _, werr := pw.Write(append(line, '\n')); werr != nil {
						return // the SDK stopped reading
					}
				}
			}
			if err != nil && !errors.Is(err, errLineTooLong) {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its newline. A line over maxLine is read to its end and
// dropped (errLineTooLong, with a non-empty line so the caller answers it).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else if len(line) > 0 || len(chunk) > 0 {
			line = []byte{'x'} // remembered only as "too long"
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err == nil || errors.Is(err, io.EOF) {
				return line, errLineTooLong
			}
			return nil, err
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

package provider

import "io"

// WireBody is a request body kept as the parts it is made of: the head, each encoded message
// (the very bytes Cache keeps, never changed once made) and the tail. It is sent as a reader
// over the parts with its length, so the request of a 10,000-row session is not copied into
// one buffer on every call. It is safe to send more than once and from several goroutines.
type WireBody struct {
	parts [][]byte
	n     int
}

var comma = []byte{','}

func (w *WireBody) add(b []byte) {
	if len(b) > 0 {
		w.parts = append(w.parts, b)
		w.n += len(b)
	}
}

// Len is the body's length in bytes.
func (w *WireBody) Len() int { return w.n }

// Reader reads the body from its start.
func (w *WireBody) Reader() io.Reader { return &partsReader{parts: w.parts} }

// Bytes is the body in one slice (a copy).
func (w *WireBody) Bytes() []byte {
	out := make([]byte, 0, w.n)
	for _, p := range w.parts {
		out = append(out, p...)
	}
	return out
}

// readCloser reads the body from its start; it is the request's GetBody too, so a redirect
// or a retry of the transport sends it again whole.
func (w *WireBody) readCloser() (io.ReadCloser, error) { return io.NopCloser(w.Reader()), nil }

type partsReader struct {
	parts [][]byte
	i     int // current part
	off   int // offset in it
}

func (r *partsReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.parts) {
		c := copy(p[n:], r.parts[r.i][r.off:])
		n += c
		r.off += c
		if r.off == len(r.parts[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && r.i >= len(r.parts) {
		return 0, io.EOF
	}
	return n, nil
}

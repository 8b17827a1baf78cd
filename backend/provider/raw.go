package provider

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// rawObject assembles a JSON object from streamed fragments, keeping every field, known or
// not, in the order it first arrived. The merge rules are the ones servers stream by:
//   - strings are concatenated (reasoning_content, reasoning, a signature sent in pieces),
//     except identity fields (id, type, name, role, format, index), where the first non-empty
//     value stays: some servers repeat them in every fragment;
//   - objects merge field by field (tool_calls[].extra_content.google.thought_signature);
//   - an array element carrying an "index" continues the array's last element when both
//     have the same index and the same "type" (OpenRouter's reasoning_details: a
//     reasoning.text or reasoning.summary streamed in pieces); any other element is appended,
//     so the array keeps every item in the order it came (see continuePiece);
//   - null never overwrites; any other value replaces the earlier one.
type rawObject struct {
	keys []string
	vals map[string]*rawNode
}

type rawNode struct {
	str   *strings.Builder // a string
	obj   *rawObject       // an object
	arr   []*rawNode       // an array
	isArr bool
	val   json.RawMessage // a number, bool
	piece *pieceKey       // an array element's index and type, when it carries an index
}

// pieceKey is what makes two streamed array elements pieces of one item.
type pieceKey struct {
	index int64
	typ   string
}

var firstWins = map[string]bool{"id": true, "type": true, "name": true, "role": true, "format": true, "index": true}

// mergeJSON merges the object b into o, skipping the fields in skip. It reports false when b
// is not a JSON object. b comes from a chunk encoding/json has already checked, so its fields
// are split by a plain scan (objectFields) rather than by json.Decoder's tokens, which cost
// most of a streamed tool turn's decoding.
func (o *rawObject) mergeJSON(b []byte, skip map[string]bool) bool {
	return objectFields(b, func(key string, v []byte) {
		if !skip[key] {
			o.set(key, v)
		}
	})
}

// objectFields calls fn with each field of the JSON object b, in order: its key and its
// value's bytes (which alias b). It reports false, having stopped, at anything that is not
// well-formed.
func objectFields(b []byte, fn func(key string, v []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		end := valueEnd(b, i)
		if b[i] != '"' || end < 0 {
			return false
		}
		key, ok := jsonString(b[i:end])
		if !ok {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		if end = valueEnd(b, i); end < 0 {
			return false
		}
		fn(key, b[i:end])
		i = skipSpace(b, end)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return true
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the JSON value starting at b[i], or -1.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			for j++; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if j >= len(b) {
				return -1
			}
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing value: a number or literal ends here
				return j
			}
			if depth--; depth == 0 {
				return j + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return j
			}
		}
	}
	if depth != 0 {
		return -1
	}
	return len(b)
}

func (o *rawObject) set(key string, v json.RawMessage) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return
	}
	n := o.vals[key]
	if n == nil {
		n = &rawNode{}
		if o.vals == nil {
			o.vals = map[string]*rawNode{}
		}
		o.vals[key] = n
		o.keys = append(o.keys, key)
	}
	n.merge(key, v)
}

func (n *rawNode) merge(key string, v json.RawMessage) {
	switch v[0] {
	case '"':
		s, ok := jsonString(v)
		if !ok {
			return
		}
		if n.str == nil {
			n.str = &strings.Builder{}
		} else if firstWins[key] && n.str.Len() > 0 {
			return
		}
		n.str.WriteString(s)
	case '{':
		if n.obj == nil {
			n.obj = &rawObject{}
		}
		n.obj.mergeJSON(v, nil)
	case '[':
		n.isArr = true
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil {
			return
		}
		for _, e := range elems {
			n.mergeElem(e)
		}
	default:
		n.val = append(json.RawMessage(nil), v...) // v may alias the stream's buffer
	}
}

// mergeElem merges one array element: into the array's last element when it is the next piece
// of that item (continuePiece), else as a new element.
func (n *rawNode) mergeElem(e json.RawMessage) {
	e = bytes.TrimSpace(e)
	var probe struct {
		Index *int64 `json:"index"`
		Type  string `json:"type"`
	}
	el := &rawNode{}
	if len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &probe) == nil && probe.Index != nil {
		key := pieceKey{index: *probe.Index, typ: probe.Type}
		if last := n.lastElem(); last != nil && last.piece != nil && *last.piece == key && !wholeItem[key.typ] {
			last.obj.continuePiece(e)
			return
		}
		el.piece = &key
	}
	el.merge("", e)
	n.arr = append(n.arr, el)
}

func (n *rawNode) lastElem() *rawNode {
	if len(n.arr) == 0 || n.arr[len(n.arr)-1].obj == nil {
		return nil
	}
	return n.arr[len(n.arr)-1]
}

// OpenRouter streams reasoning_details as items in order, a reasoning.text or
// reasoning.summary in pieces at one index, and documents that the items go back as they
// came, none rearranged or altered. Gemini 3 sends its reasoning.encrypted item (the thought
// signature) at the same index as the text before it, so the index alone does not tell
// items apart: the type does, and an encrypted item always arrives whole, so two of them at
// one index are two items. Within an item, the streamed fields are concatenated and every
// other field keeps its first non-empty value (a signature sent once, or repeated), as
// OpenRouter's own AI SDK provider assembles them.
var (
	wholeItem       = map[string]bool{"reasoning.encrypted": true}
	streamedInPiece = map[string]bool{"text": true, "summary": true}
)

// continuePiece merges the next piece b of the item o.
func (o *rawObject) continuePiece(b []byte) {
	objectFields(b, func(key string, v []byte) {
		if n := o.vals[key]; !streamedInPiece[key] && n != nil && (n.str == nil || n.str.Len() > 0) {
			return
		}
		o.set(key, v)
	})
}

func (o *rawObject) has(key string) bool { _, ok := o.vals[key]; return ok }

// writeFields writes o's fields (without braces), each preceded by a comma when first is false.
func (o *rawObject) writeFields(w *bytes.Buffer, first bool, skip map[string]bool) bool {
	for _, k := range o.keys {
		if skip[k] {
			continue
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		writeString(w, k)
		w.WriteByte(':')
		o.vals[k].write(w)
	}
	return first
}

func (n *rawNode) write(w *bytes.Buffer) {
	switch {
	case n.str != nil:
		writeString(w, n.str.String())
	case n.obj != nil:
		w.WriteByte('{')
		n.obj.writeFields(w, true, nil)
		w.WriteByte('}')
	case n.isArr:
		w.WriteByte('[')
		for i, e := range n.arr {
			if i > 0 {
				w.WriteByte(',')
			}
			e.write(w)
		}
		w.WriteByte(']')
	case n.val != nil:
		w.Write(n.val)
	default:
		w.WriteString("null")
	}
}

// writeString writes s as a JSON string without HTML escaping.
func writeString(w io.Writer, s string) {
	var b bytes.Buffer
	benc := json.NewEncoder(&b)
	benc.SetEscapeHTML(false)
	_ = benc.Encode(s) // a string always encodes
	_, _ = w.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

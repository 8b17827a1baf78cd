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
//   - arrays merge element by element on their "index" field, as OpenRouter streams
//     reasoning_details; elements without one are appended;
//   - null never overwrites; any other value replaces the earlier one.
type rawObject struct {
	keys []string
	vals map[string]*rawNode
}

type rawNode struct {
	str    *strings.Builder // a string
	obj    *rawObject       // an object
	arr    []*rawNode       // an array
	arrIdx map[int64]int    // "index" of an array's object elements -> position in arr
	isArr  bool
	val    json.RawMessage // a number, bool
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

// mergeElem merges one array element: into the element with the same "index" when it has one.
func (n *rawNode) mergeElem(e json.RawMessage) {
	e = bytes.TrimSpace(e)
	var probe struct {
		Index *int64 `json:"index"`
	}
	if len(e) > 0 && e[0] == '{' && json.Unmarshal(e, &probe) == nil && probe.Index != nil {
		if pos, ok := n.arrIdx[*probe.Index]; ok {
			n.arr[pos].merge("", e)
			return
		}
		if n.arrIdx == nil {
			n.arrIdx = map[int64]int{}
		}
		n.arrIdx[*probe.Index] = len(n.arr)
	}
	el := &rawNode{}
	el.merge("", e)
	n.arr = append(n.arr, el)
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

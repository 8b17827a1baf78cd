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
// is not a JSON object.
func (o *rawObject) mergeJSON(b []byte, skip map[string]bool) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return false
		}
		if skip[key] {
			continue
		}
		o.set(key, v)
	}
	return true
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
		var s string
		if json.Unmarshal(v, &s) != nil {
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
		n.val = v
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

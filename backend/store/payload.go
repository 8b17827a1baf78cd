package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// A row's payload in its stored form: checked against its kind's type, unknown fields
// refused, the empty lists filled in, marshalled without HTML escaping.

// canonical validates p against kind and returns its stored JSON.
func canonical(kind Kind, p any) (json.RawMessage, any, error) {
	if v, ok := typedPayload(kind, p); ok {
		// A payload of the kind's own type needs no decoding: marshalling it is what the
		// round trip below would give, unless the text had invalid UTF-8 (which marshal
		// replaces): then the round trip keeps the values matching the stored JSON.
		out, err := marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %s payload: %v", ErrInvalid, kind, err)
		}
		if !bytes.Contains(out, []byte(`\ufffd`)) {
			return out, v, nil
		}
		p = out
	}
	raw, ok := p.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = marshal(p); err != nil {
			return nil, nil, fmt.Errorf("%w: %s payload: %v", ErrInvalid, kind, err)
		}
	}
	v, err := decodePayload(kind, raw)
	if err != nil {
		return nil, nil, err
	}
	out, err := marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return out, v, nil
}

// decodePayload decodes stored or given JSON into a new payload of the kind's type,
// refusing unknown fields, with the empty lists the stored form always has.
func decodePayload(kind Kind, raw json.RawMessage) (any, error) {
	v, ok := NewPayload(kind)
	if !ok {
		return nil, fmt.Errorf("%w: unknown kind %q", ErrInvalid, kind)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%w: %s payload: %v", ErrInvalid, kind, err)
	}
	normalize(v)
	return v, nil
}

// typedPayload copies p into a new payload of the kind's type when p is that type (a value
// or a non-nil pointer): what the runner appends. The copy shares p's slices, which nothing
// changes.
func typedPayload(kind Kind, p any) (any, bool) {
	v, ok := NewPayload(kind)
	if !ok || p == nil {
		return nil, false
	}
	dst := reflect.ValueOf(v).Elem()
	src := reflect.ValueOf(p)
	if src.Kind() == reflect.Pointer && !src.IsNil() {
		src = src.Elem()
	}
	if src.Type() != dst.Type() {
		return nil, false
	}
	dst.Set(src)
	normalize(v)
	return v, true
}

// normalize gives a payload the empty lists its stored form always has.
func normalize(v any) {
	if a, ok := v.(*AssistantPayload); ok && a.ToolCalls == nil {
		a.ToolCalls = []ToolCall{}
	}
	if r, ok := v.(*RestorePayload); ok && r.Restored == nil {
		r.Restored = []RestoredPath{}
	}
}

// marshal is json.Marshal without HTML escaping, so stored text reads as
// written (`<` stays `<`) in exports and in the sqlite3 shell.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

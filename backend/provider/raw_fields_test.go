package provider

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// objectFields splits an object as json.Decoder does: the same keys, in order, with the same
// values, whatever the spacing, escapes and nesting; and it refuses what is not an object.
func TestObjectFieldsSplitsAsTheDecoderDoes(t *testing.T) {
	for _, in := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"a" : -1.5e3 , "b":true,"c":null}`,
		`{"s":"x\"y\\","t":"\u00e9\n"}`, `{"k\"ey":"v","\u0041":"w"}`,
		`{"o":{"p":[1,{"q":"]}"}],"r":{}},"n":[]}`, "{\n\t\"a\": [ 1 , 2 ]\r\n}",
		`{"extra_content":{"google":{"thought_signature":"abc=="}},"index":0}`,
	} {
		var got []string
		if !objectFields([]byte(in), func(k string, v []byte) { got = append(got, k+"="+string(v)) }) {
			t.Errorf("%s: refused", in)
			continue
		}
		if want := decoderFields(t, in); !slices.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", in, got, want)
		}
	}
	for _, in := range []string{``, `[]`, `"s"`, `{"a"}`, `{"a":1`, `{"a":"x}`, `{"a":{"b":1}`, `{1:2}`, `{"a":1 "b":2}`} {
		if objectFields([]byte(in), func(string, []byte) {}) {
			t.Errorf("%q: accepted", in)
		}
	}
}

func decoderFields(t *testing.T, in string) []string {
	dec := json.NewDecoder(bytes.NewReader([]byte(in)))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for dec.More() {
		k, _ := dec.Token()
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, k.(string)+"="+string(v))
	}
	return out
}

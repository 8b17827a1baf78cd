package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPrepareSchema(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
	}{
		{"empty object", `{}`, true},
		{"draft-07 as zod emits it", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"number"}},"required":["a"],"additionalProperties":false}`, true},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}}}`, true},
		{"unknown $schema dropped", `{"$schema":"https://example.com/my-meta","type":"object"}`, true},
		{"no type", `{"properties":{"a":{"type":"string"}}}`, true},
		{"not an object schema", `{"type":"array"}`, false},
		{"bad keyword value", `{"type":"object","properties":{"a":{"type":"strin"}}}`, false},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/remote.json"}}}`, false},
		{"null", `null`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			out, err := prepareSchema(in)
			if (err == nil) != c.ok {
				t.Fatalf("prepareSchema(%s) = %s, %v; want ok=%v", c.in, out, err, c.ok)
			}
			if err == nil && (!strings.Contains(string(out), `"type":"object"`) || !strings.Contains(string(out), `"properties"`)) {
				t.Fatalf("prepared schema %s lacks type object or properties", out)
			}
		})
	}
}

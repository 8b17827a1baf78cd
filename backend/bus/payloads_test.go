package bus_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/loopdesk/loopdesk/backend/bus"
)

// A payload field named like the envelope's "type" or "seq" would be dropped by MarshalJSON,
// and its value lost on the way to the page (files_changed once lost its row seq that way).
func TestPayloadFieldsDoNotShadowTheEnvelope(t *testing.T) {
	for typ, p := range bus.PayloadTypes() {
		rt := reflect.TypeOf(p)
		if rt.Kind() != reflect.Struct {
			continue
		}
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if name == "type" || name == "seq" {
				t.Errorf("%s payload field %s is sent as %q, which the envelope overwrites", typ, rt.Field(i).Name, name)
			}
		}
	}
}

package loop

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const eventsTS = "../../frontend/src/api/events.ts"

// jsonFields lists the JSON names of a struct's exported fields, embedded structs flattened
// as encoding/json does.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// tsInterfaces maps each exported interface in the file to its sorted field names.
func tsInterfaces(src string) map[string][]string {
	out := map[string][]string{}
	re := regexp.MustCompile(`(?ms)^export interface (\w+) \{\n(.*?)^\}`)
	field := regexp.MustCompile(`(?m)^\s+(\w+)\??:`)
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		var names []string
		for _, f := range field.FindAllStringSubmatch(m[2], -1) {
			names = append(names, f[1])
		}
		sort.Strings(names)
		out[m[1]] = names
	}
	return out
}

// TestEventsMirror fails when frontend/src/api/events.ts and events.go drift: the event names,
// their order, which are lossy, and every payload's field names.
func TestEventsMirror(t *testing.T) {
	b, err := os.ReadFile(eventsTS)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)

	consts := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^export const (\w+) = '(\w+)' as const;`).FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	var tsTypes []string
	list := regexp.MustCompile(`(?s)export const EVENT_TYPES = \[(.*?)\] as const;`).FindStringSubmatch(src)
	if list == nil {
		t.Fatal("EVENT_TYPES not found")
	}
	for _, name := range regexp.MustCompile(`\w+`).FindAllString(list[1], -1) {
		tsTypes = append(tsTypes, consts[name])
	}
	var goTypes []string
	for _, e := range EventTypes {
		goTypes = append(goTypes, string(e))
	}
	if !slices.Equal(tsTypes, goTypes) {
		t.Errorf("EVENT_TYPES = %v, Go has %v", tsTypes, goTypes)
	}
	if len(consts) != len(goTypes) {
		t.Errorf("events.ts declares %d name constants, Go %d", len(consts), len(goTypes))
	}

	var tsLossy, goLossy []string
	if m := regexp.MustCompile(`LOSSY_EVENTS[^=]*= \[(.*?)\]`).FindStringSubmatch(src); m != nil {
		for _, name := range regexp.MustCompile(`\w+`).FindAllString(m[1], -1) {
			tsLossy = append(tsLossy, consts[name])
		}
	}
	for _, e := range EventTypes {
		if e.Lossy() {
			goLossy = append(goLossy, string(e))
		}
	}
	if !slices.Equal(tsLossy, goLossy) {
		t.Errorf("LOSSY_EVENTS = %v, Go has %v", tsLossy, goLossy)
	}

	ifaces := tsInterfaces(src)
	payloads := PayloadTypes()
	union := regexp.MustCompile(`\{ type: typeof (\w+) \} & (\w+)\)`).FindAllStringSubmatch(src, -1)
	covered := map[string]bool{}
	for _, m := range union {
		typ := EventType(consts[m[1]])
		p, ok := payloads[typ]
		if !ok {
			t.Errorf("LoopEvent names %s, which Go does not publish", m[1])
			continue
		}
		covered[string(typ)] = true
		want := jsonFields(reflect.TypeOf(p))
		if got := ifaces[m[2]]; !slices.Equal(got, want) {
			t.Errorf("%s: events.ts %s has fields %v, Go %T has %v", typ, m[2], got, p, want)
		}
	}
	for _, typ := range goTypes {
		if !covered[typ] {
			t.Errorf("LoopEvent has no member for %s", typ)
		}
	}
	if got, want := ifaces["ToolCallView"], jsonFields(reflect.TypeOf(ToolCallView{})); !slices.Equal(got, want) {
		t.Errorf("ToolCallView fields %v, Go %v", got, want)
	}
	for name, typ := range map[string]reflect.Type{"Meter": reflect.TypeOf(Meter{}), "Repeats": reflect.TypeOf(Repeats{})} {
		if got, want := ifaces[name], jsonFields(typ); !slices.Equal(got, want) {
			t.Errorf("%s fields %v, Go %v", name, got, want)
		}
	}
	if got, want := ifaces["EventBase"], []string{"run_id", "seq", "session_id", "type"}; !slices.Equal(got, want) {
		t.Errorf("EventBase fields %v, want %v", got, want)
	}

	// Stop reasons: the StopReason union lists every status the core can end with.
	m := regexp.MustCompile(`(?s)export type StopReason =(.*?);`).FindStringSubmatch(src)
	if m == nil {
		t.Fatal("StopReason not found")
	}
	var tsStops []string
	for _, s := range regexp.MustCompile(`'(\w+)'`).FindAllStringSubmatch(m[1], -1) {
		tsStops = append(tsStops, s[1])
	}
	goStops := []string{string(StopCompleted), string(StopMaxTurns), string(StopMaxToolCalls), string(StopLoopDetected),
		string(StopTokenBudget), string(StopCostBudget), string(StopTimeout), string(StopContextExceeded),
		string(StopCancelled), string(StopTruncated), string(StopRefused), string(StopProviderError), string(StopHook), string(StopError)}
	if !slices.Equal(tsStops, goStops) {
		t.Errorf("StopReason = %v, Go has %v", tsStops, goStops)
	}
}

package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/loopdesk/loopdesk/backend/bus"
	"github.com/loopdesk/loopdesk/backend/desktop"
	"github.com/loopdesk/loopdesk/backend/loop/core"
	"github.com/loopdesk/loopdesk/backend/store"
)

// writeEvents writes the event names (constants, EVENT_TYPES, LOSSY_EVENTS), EventBase (what
// bus.Event.MarshalJSON puts beside every payload) and LoopEvent, the union on "type".
func writeEvents(b *bytes.Buffer, g *gen) {
	b.WriteString("// Loop events (backend/loop/events.go). Every event arrives flat: the EventBase fields plus its\n")
	b.WriteString("// payload's. seq grows by one per must-deliver event of a session; LOSSY_EVENTS carry the seq of\n")
	b.WriteString("// the last must-deliver event and may arrive merged.\n")
	var names, lossy, members []string
	payloads := bus.PayloadTypes()
	for _, e := range core.EventTypes {
		c := strings.ToUpper(string(e))
		fmt.Fprintf(b, "export const %s = '%s' as const;\n", c, e)
		names = append(names, c)
		if e.Lossy() {
			lossy = append(lossy, c)
		}
		p := g.ts(reflect.TypeOf(payloads[e]), false)
		members = append(members, fmt.Sprintf("  | (EventBase & { type: typeof %s } & %s)", c, p))
	}
	fmt.Fprintf(b, "\nexport const EVENT_TYPES = [%s] as const;\n", strings.Join(names, ", "))
	b.WriteString("export type EventType = (typeof EVENT_TYPES)[number];\n")
	b.WriteString("/** Deltas: may be merged for a slow subscriber and do not advance seq. */\n")
	fmt.Fprintf(b, "export const LOSSY_EVENTS: readonly EventType[] = [%s];\n\n", strings.Join(lossy, ", "))
	b.WriteString(`/** Go: bus.Event (its MarshalJSON). parent_*: set on the events of a child session's run. */
export interface EventBase {
  type: EventType;
  session_id: string;
  run_id: string;
  seq: number;
  parent_call_id?: string;
  parent_session_id?: string;
}

`)
	b.WriteString("export type LoopEvent =\n" + strings.Join(members, "\n") + ";\n")
}

// writeChannels writes the Wails channel names and the error codes of desktop.ErrorCodes.
func writeChannels(b *bytes.Buffer, g *gen) {
	b.WriteString("\n// Wails event channels (backend/desktop).\n")
	listed := map[string]bool{}
	for _, c := range channels {
		fmt.Fprintf(b, "export const %s = '%s';\n", c.ts, c.name)
		listed[c.name] = true
	}
	for _, name := range desktop.Channels {
		if !listed[name] {
			g.errs = append(g.errs, "channel "+name+" (desktop.Channels) has no entry in channels: name it and its payload")
		}
	}
	var codes []string
	for _, c := range desktop.ErrorCodes {
		codes = append(codes, string(c))
	}
	b.WriteString("\n/** Why a bound method failed (desktop.ErrorCodes). */\n")
	fmt.Fprintf(b, "export const ERROR_CODES = [%s] as const;\n", "'"+strings.Join(codes, "', '")+"'")
}

// writeRow writes Row, the stored row (bus.StoredRow) as a union on kind: narrowing on
// row.kind gives its payload's type (store.NewPayload).
func writeRow(b *bytes.Buffer, g *gen) {
	b.WriteString("\n/** Each row kind's payload (store.NewPayload). */\nexport interface RowPayloads {\n")
	for _, k := range store.Kinds {
		p, _ := store.NewPayload(k)
		fmt.Fprintf(b, "  %s: %s;\n", k, g.ts(reflect.TypeOf(p).Elem(), false))
	}
	b.WriteString("}\n\n/** A stored row without its kind and payload (Go: bus.StoredRow). */\nexport interface RowBase {\n")
	for _, f := range fields(rowType) {
		if f.name == "kind" || f.name == "payload" {
			continue
		}
		b.WriteString("  " + g.member(f) + ";\n")
	}
	b.WriteString("}\n\n/** One stored row of a session: narrowing on kind gives the payload's type. */\n")
	b.WriteString("export type Row = { [K in ChunkKind]: RowBase & { kind: K; payload: RowPayloads[K] } }[ChunkKind];\n")
	b.WriteString("export const CHUNK_KINDS: readonly ChunkKind[] = [")
	for i, k := range store.Kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "'%s'", k)
	}
	b.WriteString("];\n")
}

package fakeai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A measurement through the app subtracts the fake model's own time: /_fake/timings reports,
// per /v1 request, when its body was read whole and when the first response byte went out.
// A reply that pauses before its first delta still sends its headers at once, so the
// server's time is the decoding, not the scripted pause; an error reply counts too.
func TestTimingsReportWhenTheBodyWasReadAndTheFirstByteSent(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	s.Enqueue(Text("Hello").WithDelay(50 * time.Millisecond))
	before := time.Now()
	resp := post(t, ctx, s.URL()+"/chat/completions", chatBody)
	io.Copy(io.Discard, resp.Body)
	post(t, ctx, s.URL()+"/nowhere", `{}`)

	res, err := http.Get(strings.TrimSuffix(s.URL(), "/v1") + "/_fake/timings")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got []Timing
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != "/v1/chat/completions" || got[1].Path != "/v1/nowhere" {
		t.Fatalf("timings = %+v, want the chat request then the unknown one", got)
	}
	c := got[0]
	if c.BodyBytes != len(chatBody) {
		t.Errorf("body_bytes = %d, want %d", c.BodyBytes, len(chatBody))
	}
	if c.Started < float64(before.UnixMilli())-1 || c.BodyRead < c.Started || c.FirstByte < c.BodyRead {
		t.Errorf("times out of order: %+v (request sent at %d)", c, before.UnixMilli())
	}
	if c.ServerMS < 0 || c.ServerMS >= 50 {
		t.Errorf("server_ms = %v, want the time before the headers, not the 50 ms pause before the delta", c.ServerMS)
	}
	if got[1].FirstByte == 0 {
		t.Errorf("the 404 reply's first byte was not noted: %+v", got[1])
	}
	s.Reset()
	if n := len(s.Timings()); n != 0 {
		t.Errorf("after Reset %d timings remain", n)
	}
}

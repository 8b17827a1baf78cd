package tools

import "testing"

func TestModeReview(t *testing.T) {
	if !ModeReview.Valid() {
		t.Fatal("review is not a valid mode")
	}
	cases := []struct {
		call     Call
		readOnly bool
		want     Effect
	}{
		{Call{Name: "read_file", Arguments: `{"path":"a"}`}, true, EffectAllow},
		{Call{Name: "write_file", Arguments: `{"path":"a","content":"x"}`}, false, EffectAsk},
		{Call{Name: "run_shell_command", Arguments: `{"command":"ls"}`}, false, EffectAsk},
	}
	for _, c := range cases {
		if got, by := evaluate(ModeReview, nil, c.call, c.readOnly, false, "/ws"); got != c.want || by != "mode:review" {
			t.Errorf("%s: %s by %s, want %s", c.call.Name, got, by, c.want)
		}
	}
	// A deny rule still wins.
	rules := []Rule{{ID: "r1", Tool: "read_file", Effect: EffectDeny}}
	if got, _ := evaluate(ModeReview, rules, cases[0].call, true, false, "/ws"); got != EffectDeny {
		t.Errorf("deny rule in review mode: %s", got)
	}
}

package hooks_test

import "testing"

// What a tool call pays for hooks: with none configured (the files are read and the trust
// looked up, nothing runs), and with one trivial command hook (a shell started and waited for).
func BenchmarkFire(b *testing.B) {
	for _, c := range []struct {
		name  string
		hooks bool
	}{{"no_hooks", false}, {"one_true_hook", true}} {
		b.Run(c.name, func(b *testing.B) {
			f := newFixture(b)
			if c.hooks {
				f.personalHooks(hooksConfig("PreToolUse", "Bash", cmd("true")))
			}
			in := shellCall("ls")
			in.SessionID, in.Workspace, in.PermissionMode = f.session, f.folder, "ask"
			b.ResetTimer()
			for range b.N {
				out := f.engine.Fire(b.Context(), in)
				if c.hooks != (len(out.Runs) == 1) {
					b.Fatalf("runs %d", len(out.Runs))
				}
			}
		})
	}
}

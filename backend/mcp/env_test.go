package mcp

import (
	"strings"
	"testing"
)

func TestServerEnv(t *testing.T) {
	base := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "XDG_RUNTIME_DIR=/run/u",
		"OPENAI_API_KEY=sk-secret", "LOOPDESK_DB=/x.db", "AWS_SECRET_ACCESS_KEY=s", "GITHUB_TOKEN=ghp_1",
	}
	got := strings.Join(serverEnv(base, map[string]string{
		"GITHUB_TOKEN": "${GITHUB_TOKEN}", "MODE": "${UNSET:-fast}", "LITERAL": "$HOME", "PATH": "/opt/bin:${PATH}",
	}), "\n")
	for _, want := range []string{"HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "XDG_RUNTIME_DIR=/run/u", "GITHUB_TOKEN=ghp_1", "MODE=fast", "LITERAL=$HOME", "PATH=/opt/bin:/usr/bin"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("env lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"OPENAI_API_KEY", "LOOPDESK_DB", "AWS_SECRET_ACCESS_KEY", "sk-secret"} {
		if strings.Contains(got, bad) {
			t.Errorf("env holds %q:\n%s", bad, got)
		}
	}
}

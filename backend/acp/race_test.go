//go:build race

package acp_test

// Under -race the agent binary is built with -race too, so the tests that drive it over ACP
// also look for data races in the agent (a race makes it exit with status 66).
func init() { buildFlags = append(buildFlags, "-race") }

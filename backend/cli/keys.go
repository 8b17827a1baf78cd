package cli

import (
	"os"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/sandbox"
)

// HideKeys is the first thing both programs' main does, before anything runs or starts: the
// key and the providers' api_key_env variables (providers.json) leave the environment (Go's
// copy and the block /proc/<pid>/environ shows) and the process becomes non-dumpable, so no
// child, sandboxed or not, can read them (docs/sandbox.md); only Go memory keeps them, in
// APIKey and Secrets. getenv is the environment as the configuration sees it: the hidden keys
// included. An error is worth a warning: the keys it could take are taken.
func HideKeys() (getenv func(string) string, err error) {
	secrets, err := sandbox.HideSecrets(config.KeyEnvNames()...)
	APIKey, Secrets = secrets["OPENAI_API_KEY"], secrets
	return func(name string) string {
		if v, ok := secrets[name]; ok {
			return v
		}
		return os.Getenv(name)
	}, err
}

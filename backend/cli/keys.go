package cli

import (
	"fmt"
	"os"

	"github.com/loopdesk/loopdesk/backend/config"
	"github.com/loopdesk/loopdesk/backend/sandbox"
)

// Start is what both programs' main does first: it hides the keys (hideKeys) and runs the
// command line (Main) on the standard streams. Unless the launch is a window's, a command has
// run and its status is in the Launch. getenv is the environment as the configuration sees
// it, the hidden keys included, for the window.
func Start(args []string) (launch Launch, getenv func(string) string) {
	getenv, err := hideKeys()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopdesk: %v\n", err) // the keys it could take are taken
	}
	return Main(args, getenv, os.Stdin, os.Stdout, os.Stderr), getenv
}

// hideKeys runs before anything runs or starts: the key and the providers' api_key_env
// variables (providers.json) leave the environment (Go's copy and the block
// /proc/<pid>/environ shows) and the process becomes non-dumpable, so no child, sandboxed or
// not, can read them (docs/sandbox.md); only Go memory keeps them, in APIKey and Secrets.
func hideKeys() (getenv func(string) string, err error) {
	secrets, err := sandbox.HideSecrets(config.KeyEnvNames()...)
	APIKey, Secrets = secrets["OPENAI_API_KEY"], secrets
	return func(name string) string {
		if v, ok := secrets[name]; ok {
			return v
		}
		return os.Getenv(name)
	}, err
}

package store_test

import (
	"os"
	"testing"
)

// The test binary doubles as the child process of the subprocess tests.
const (
	childEnv = "LOOPDESK_STORE_TEST_CHILD"
	childDB  = "LOOPDESK_STORE_TEST_DB"
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "lock":
		childLock(os.Getenv(childDB))
	case "append":
		childAppend(os.Getenv(childDB))
	}
	code := m.Run()
	cleanBenchDir()
	os.Exit(code)
}

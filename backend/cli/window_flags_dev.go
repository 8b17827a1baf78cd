//go:build dev

package cli

// windowFlags are the flags the Wails dev build reads itself
// (internal/app/app_dev.go), each taking a value: `loopdesk-dev -assetdir
// frontend/dist -devserver localhost:34115` must still open the window.
var windowFlags = []string{"assetdir", "devserver", "frontenddevserverurl", "loglevel"}

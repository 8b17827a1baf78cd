//go:build !dev

package cli

// windowFlags are the flags a window launch accepts: none in a release build.
var windowFlags []string

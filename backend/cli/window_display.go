//go:build !bindings

package cli

// needsDisplay: a window launch needs a display (see CheckDisplay).
const needsDisplay = true

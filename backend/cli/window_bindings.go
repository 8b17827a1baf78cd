//go:build bindings

package cli

// needsDisplay is false in the build `wails generate module` runs to read the bound methods:
// it never opens a window.
const needsDisplay = false

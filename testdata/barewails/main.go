// Command barewails is the baseline of scripts/bench-window.sh: a bare Wails v2
// window with a one-line page, built with the same tags and window size as
// Loopdesk and Wails' defaults otherwise. It sets no Linux options on purpose:
// then Wails picks the WebKit GPU policy Never (wails issue 2977), so any cost
// of Loopdesk's own choice of policy shows in the bench's ratios.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

//go:embed index.html
var assets embed.FS

func main() {
	err := wails.Run(&options.App{
		Title:            "barewails",
		Width:            1280,
		Height:           800,
		BackgroundColour: &options.RGBA{R: 250, G: 250, B: 250, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

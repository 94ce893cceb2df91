//go:build tools

// Package webgguf pins the module's dependencies before each is used for real.
package webgguf

import (
	_ "github.com/chromedp/chromedp"
	_ "github.com/cogentcore/webgpu/wgpu"
	_ "github.com/hack-pad/safejs"
	_ "github.com/tetratelabs/wazero"
	_ "golang.org/x/sync/errgroup"
)

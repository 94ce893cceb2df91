module github.com/webgguf/webgguf

go 1.26.8

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/cogentcore/webgpu v0.23.0
	github.com/hack-pad/safejs v0.1.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/tetratelabs/wazero v1.12.0
	golang.org/x/sync v0.24.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/ebitengine/purego v0.8.4 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20240719175910-8a7402abbf56 // indirect
	golang.org/x/sys v0.44.0 // indirect
	golang.org/x/text v0.23.0 // indirect
)

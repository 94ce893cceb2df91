//go:build !js

package main

// The program runs only under GOOS=js; natively the package holds the test
// that drives it in Chromium.

func main() {}

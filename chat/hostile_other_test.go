//go:build !linux

package chat

import "os"

// maxRSS is unknown off Linux; TestHostileMemory skips there.
func maxRSS(*os.ProcessState) int64 { return 0 }

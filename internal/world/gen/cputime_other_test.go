//go:build !unix

package gen

import "time"

// cpuTime is unknown here.
func cpuTime() time.Duration { return 0 }

// maxRSS is unknown here.
func maxRSS() int64 { return 0 }

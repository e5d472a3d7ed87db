//go:build !unix

package rusage

import "time"

func cpu() (time.Duration, bool) { return 0, false }

func peakRSS() int64 { return 0 }

//go:build unix

package collector

import "syscall"

// cpuSeconds is the process's user + system CPU time, for benchmarks run
// on a loaded machine (wall time there measures the neighbours).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

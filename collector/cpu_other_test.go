//go:build !unix

package collector

func cpuSeconds() float64 { return 0 }

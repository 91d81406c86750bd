//go:build !unix

package e2e

// selfCPUSeconds is not measured on systems without getrusage.
func selfCPUSeconds() float64 { return 0 }

//go:build windows

package transcript

// openNonblock is 0 on Windows: opening a named pipe there does not wait
// for a writer, and os.OpenFile has no O_NONBLOCK.
const openNonblock = 0

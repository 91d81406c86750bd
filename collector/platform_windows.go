//go:build windows

package collector

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// openNonblock is 0 on Windows: opening a file there never waits for a
// writer, and os.OpenFile has no O_NONBLOCK.
const openNonblock = 0

// statID is the (volume serial number, file index) of the file at path:
// Windows' os.FileInfo does not carry them, so the file is opened to ask.
// The zero fileID means "unknown" and matches no checkpoint by identity.
func statID(path string, _ os.FileInfo) fileID {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return fileID{}
	}
	h, err := syscall.CreateFile(p, 0, syscall.FILE_SHARE_READ|syscall.FILE_SHARE_WRITE|syscall.FILE_SHARE_DELETE,
		nil, syscall.OPEN_EXISTING, syscall.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return fileID{}
	}
	defer syscall.CloseHandle(h)
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(h, &d); err != nil {
		return fileID{}
	}
	return fileID{Dev: uint64(d.VolumeSerialNumber), Ino: uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}
}

// lockFile: Windows has no flock, and the hook takes none there, so the
// daemon never renames a fallback file under a writer.
func lockFile(f *os.File, wait time.Duration) (unlock func(), err error) {
	return nil, fmt.Errorf("lock %s: %w", f.Name(), errLockBusy)
}

// unlinked: Windows does not say; the caller decides by names alone.
func unlinked(f *os.File) (gone, ok bool) { return false, false }

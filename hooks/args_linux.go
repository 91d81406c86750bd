package hooks

import "syscall"

// ProcessArgs returns the command line (os.Args) from /proc/self/cmdline:
// NUL-terminated arguments. It spares a hook binary package os (see
// file_unix.go). Without /proc it returns nil: `sepad hook` then runs the
// ordinary way, after every init, and sepad-hook with its defaults.
func ProcessArgs() []string {
	fd, err := syscall.Open("/proc/self/cmdline", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var b []byte
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 || err != nil {
			break
		}
		b = append(b, buf[:n]...)
	}
	var args []string
	for start, i := 0, 0; i < len(b); i++ {
		if b[i] == 0 {
			args = append(args, string(b[start:i]))
			start = i + 1
		}
	}
	return args
}

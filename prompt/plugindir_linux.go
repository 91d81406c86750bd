package prompt

import (
	"path/filepath"
	"strconv"
	"syscall"
)

// parentPluginDirs returns the --plugin-dir directories of the Claude Code
// process that started the hook: its parent, or the parent's parent when
// the parent is a shell (a shell-form handler), read from /proc. Relative
// directories are taken from that process's working directory.
func parentPluginDirs() []string {
	pid := syscall.Getppid()
	for range 2 {
		if pid <= 1 {
			return nil
		}
		proc := "/proc/" + strconv.Itoa(pid)
		b, err := readFile(proc+"/cmdline", 1<<20)
		if err != nil {
			return nil
		}
		args := splitNUL(b)
		if len(args) > 0 && isShell(baseName(args[0])) {
			pid = procParent(proc)
			continue
		}
		dirs := pluginDirArgs(args)
		if len(dirs) == 0 {
			return nil
		}
		cwd := readLink(proc + "/cwd")
		var out []string
		for _, d := range dirs {
			if !filepath.IsAbs(d) {
				if cwd == "" {
					continue
				}
				d = filepath.Join(cwd, d)
			}
			out = append(out, filepath.Join(d))
		}
		return out
	}
	return nil
}

// procParent reads the parent pid from /proc/PID/stat ("pid (comm) S ppid …").
func procParent(proc string) int {
	b, err := readFile(proc+"/stat", 4096)
	if err != nil {
		return 0
	}
	s := string(b)
	i := len(s) - 1
	for i >= 0 && s[i] != ')' {
		i--
	}
	if i < 0 {
		return 0
	}
	f := s[i+1:]
	// " S ppid ..."
	var fields []string
	start := -1
	for j := 0; j <= len(f); j++ {
		if j == len(f) || f[j] == ' ' {
			if start >= 0 {
				fields = append(fields, f[start:j])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = j
		}
	}
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}

func readLink(p string) string {
	buf := make([]byte, 4096)
	n, err := syscall.Readlink(p, buf)
	if err != nil || n <= 0 || n >= len(buf) {
		return ""
	}
	return string(buf[:n])
}

package promptfile

import (
	"fmt"
	"os"
	"strconv"
)

// checkDirInside verifies, on the open directory's descriptor, that the
// directory a write goes to is root or inside it: the kernel's name for
// the descriptor (/proc/self/fd), not the path that was resolved, so a
// directory swapped after the resolution is caught. os.Root already
// opened it one component at a time without leaving root; this is the
// second check. Without /proc (a sandbox) os.Root's guarantee stands alone.
func checkDirInside(dir *os.Root, root string) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(d.Fd())))
	if err != nil {
		return nil
	}
	if name != root && !Under(name, []string{root}) {
		return fmt.Errorf("%s is not inside %s: %w", name, root, ErrOutsideRoots)
	}
	return nil
}

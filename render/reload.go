package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/status"
)

// Reload is what `sepad reload` prints of the daemon's reload: the file
// it read, the keys applied now and those waiting for a restart.
func Reload(w io.Writer, r *status.Reload) {
	file := r.Config
	if file == "" {
		file = "no configuration file (the built-in defaults)"
	}
	fmt.Fprintf(w, "the daemon read %s\n", file)
	switch {
	case len(r.Applied) == 0 && len(r.Restart) == 0:
		fmt.Fprintln(w, "nothing changed")
	case len(r.Applied) > 0:
		fmt.Fprintf(w, "applied now: %s\n", strings.Join(r.Applied, ", "))
	}
	if len(r.Restart) > 0 {
		fmt.Fprintf(w, "waits for a restart of the daemon: %s\n", strings.Join(r.Restart, ", "))
	}
}

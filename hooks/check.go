package hooks

import (
	"strings"

	"github.com/sepad/sepad/event"
)

// checkLine returns "" when the collector's parser accepts line, an
// enriched line the walker wrote, and otherwise the reason it gives. The
// hook quarantines such payloads itself, keeping them whole, instead of
// leaving a line the collector can only quarantine.
func checkLine(line []byte) string {
	if _, err := event.ParseLine(line); err != nil {
		return strings.TrimPrefix(err.Error(), event.ErrMalformed.Error()+": ")
	}
	return ""
}

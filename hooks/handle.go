// Package hooks is the hook itself: `sepad hook` (and sepad-hook) turns
// one Claude Code hook payload into one enriched line (Enrich) and appends
// it to the spool (package spool); Handle does both, for the command hook
// and the HTTP transport. At a SessionStart it answers with the pending
// notices of its project. Which prompt file and version an event belongs
// to is said here too (skill.go, instructions.go), with package prompt,
// which knows where Claude Code keeps its prompt files.
//
// The line schema is documented in docs/events.md.
package hooks

import (
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sepad/sepad/spool"
)

// Result says what Handle did with one payload.
type Result struct {
	// Wrote is the file that received the line: spool.Path,
	// spool.FallbackPath or one of spool.RuntimeFallbackPaths.
	Wrote string
	// Fallback is set when the line went to the fallback file.
	Fallback bool
	// Quarantined is set when the payload was stored as a Quarantined line.
	Quarantined bool
	// Duplicate is set when nothing was written: the spool already held
	// the other copy of this event from a double install (dedup.go).
	Duplicate bool
	// Bytes is the length of the line written, newline included.
	Bytes int
	// sessionStart is set for a SessionStart event; project is its
	// sepa.project (notice.go).
	sessionStart bool
	project      string
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) home() string {
	if o.Home != "" {
		return o.Home
	}
	return spool.Home()
}

func (o Options) lockTimeout() time.Duration {
	if o.LockTimeout > 0 {
		return o.LockTimeout
	}
	return DefaultLockTimeout
}

// Handle is the whole hook for one payload: Enrich it and append the line
// to the spool of opts.Home (spool.AppendUnless). The command hook (`sepad hook`) and the HTTP
// transport both call it, so both write the same line.
// A panic while enriching (a bug) still keeps the payload, quarantined.
func Handle(payload []byte, opts Options) (Result, error) {
	e := safeEnrich(payload, opts.now(), opts)
	res, err := write(e.line, e.quarantined, opts)
	res.sessionStart, res.project = e.event == evSessionStart, e.project
	return res, err
}

func safeEnrich(payload []byte, now time.Time, opts Options) (e enriched) {
	defer func() {
		if p := recover(); p != nil {
			e = enriched{line: quarantine(payload, "internal error: "+fmt.Sprint(p), now, opts, int64(len(payload)), nil), quarantined: true}
		}
	}()
	return enrich(payload, now, opts)
}

// HandleReader reads a payload from r, at most opts.MaxPayload bytes, and
// handles it like Handle. A larger payload is drained (so the writer is not
// blocked) and stored as a Quarantined line keeping its head, full length
// and sha256. A read error quarantines what was read.
func HandleReader(r io.Reader, opts Options) (Result, error) {
	limit := opts.MaxPayload
	if limit <= 0 {
		limit = DefaultMaxPayload
	}
	payload, err := readUpTo(r, limit)
	if err != nil {
		return write(Quarantine(payload, "read payload: "+err.Error(), opts.now(), opts, int64(len(payload)), nil), true, opts)
	}
	if int64(len(payload)) < limit {
		return Handle(payload, opts)
	}
	// Possibly more: count and hash the rest.
	h := sha256.New()
	h.Write(payload)
	extra, err := io.Copy(h, r)
	if extra == 0 && err == nil {
		return Handle(payload, opts)
	}
	total := int64(len(payload)) + extra
	reason := "payload of " + strconv.FormatInt(total, 10) + " bytes is over the " + strconv.FormatInt(limit, 10) + " byte limit"
	if err != nil {
		reason += "; read error: " + err.Error()
	}
	return write(Quarantine(payload, reason, opts.now(), opts, total, h.Sum(nil)), true, opts)
}

// firstRead is readUpTo's first buffer: most payloads (every event but a
// Read or a large command output) fit, so a hook reads its stdin in one
// read plus the one that sees EOF, where io.ReadAll's 512-byte start takes
// six reads and touches three times the memory for a 2 KB payload.
const firstRead = 16 << 10

// readUpTo reads r to EOF or to limit bytes, whichever comes first, like
// io.ReadAll(io.LimitReader(r, limit)).
func readUpTo(r io.Reader, limit int64) ([]byte, error) {
	b := make([]byte, 0, min(limit, firstRead))
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grow (doubling)
		}
		n, err := r.Read(b[len(b):min(int64(cap(b)), limit)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

func write(line []byte, quarantined bool, opts Options) (Result, error) {
	res := Result{Bytes: len(line) + 1, Quarantined: quarantined}
	home := opts.home()
	var dup func(string) bool
	if !quarantined {
		dup = dedupCheck(home, line, opts.Plugin)
	}
	wrote, duplicate, err := spool.AppendUnless(home, line, opts.lockTimeout(), dup)
	if opts.Plugin && err == nil {
		markPlugin(home)
	}
	res.Wrote, res.Duplicate = wrote, duplicate
	if duplicate {
		res.Bytes = 0
	}
	res.Fallback = wrote != "" && wrote != spool.Path(home)
	return res, err
}

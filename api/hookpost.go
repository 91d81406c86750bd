package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/sepad/sepad/hooks"
)

// hook is Claude Code's HTTP hook: the payload is enriched and appended
// to the spool before the answer. Success is 204 with no body (a body
// would be read by Claude Code as hook output); where the line went is in
// the X-Sepad-Wrote header (spool or fallback). The work per request is
// bounded: at most MaxHookPosts at once (503 beyond, after a short wait),
// a body of at most MaxHookBody bytes (413 beyond, refused before reading
// when Content-Length says so), read within its own time once in a slot
// (bodyTime; 408 beyond), so that slow clients cannot keep the slots for
// the server's 30 s read timeout.
func (h *handler) hook(w http.ResponseWriter, r *http.Request) {
	limit := h.o.MaxHookBody
	if r.ContentLength > limit {
		h.refuse(w, http.StatusRequestEntityTooLarge, refusedTooLarge, fmt.Errorf("the body of %d bytes is over the %d byte limit", r.ContentLength, limit))
		return
	}
	t := time.NewTimer(hookWait)
	select {
	case h.hookSlots <- struct{}{}:
		t.Stop()
	case <-t.C:
		w.Header().Set("Retry-After", "1")
		h.refuse(w, http.StatusServiceUnavailable, refusedBusy, fmt.Errorf("%d hook requests are being handled: try again", cap(h.hookSlots)))
		return
	case <-r.Context().Done():
		t.Stop()
		return
	}
	defer func() { <-h.hookSlots }()
	// Not every ResponseWriter has a connection (a test's recorder): the
	// server's read timeout then stays the bound.
	wait := h.bodyTime(r.ContentLength)
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(wait))
	payload, err := readBody(r.Body, r.ContentLength, limit)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		h.refuse(w, http.StatusRequestTimeout, refusedSlow, fmt.Errorf("the body did not arrive within %v", wait))
		return
	case errors.As(err, &tooLarge):
		h.refuse(w, http.StatusRequestEntityTooLarge, refusedTooLarge, fmt.Errorf("the body is over the %d byte limit", limit))
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, fmt.Errorf("read the body: %w", err), nil)
		return
	}
	var res hooks.Result
	if len(payload) < bigBody {
		res, err = hooks.Handle(payload, *h.o.Hook)
	} else {
		// One large body is walked at a time: encoding/json's walk holds
		// about three times a body's size besides the body (its buffer,
		// the decoded string, the line), so four at once would cost
		// twelve; the others wait in their slots, their bodies read. The
		// daemon's soft memory limit (sepad run) keeps the garbage of one
		// from adding to the next.
		h.big.Lock()
		res, err = hooks.Handle(payload, *h.o.Hook)
		h.big.Unlock()
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Errorf("hook event not recorded: %w", err), nil)
		return
	}
	where := "spool"
	if res.Fallback {
		where = "fallback"
	}
	w.Header().Set("X-Sepad-Wrote", where)
	if res.Quarantined {
		w.Header().Set("X-Sepad-Quarantined", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// bodyTime is how long a hook body of length bytes (-1: unknown, then
// the largest allowed) may take to arrive.
func (h *handler) bodyTime(length int64) time.Duration {
	if length < 0 {
		length = h.o.MaxHookBody
	}
	return h.o.HookBodyTime + time.Duration(length)*time.Second/hookBodyRate
}

// refuse answers a hook request it did not read and counts it.
func (h *handler) refuse(w http.ResponseWriter, status int, reason string, err error) {
	if h.o.Metrics != nil {
		h.o.Metrics.hookRefused.WithLabelValues(reason).Inc()
	}
	w.Header().Set("Connection", "close") // the unread body is not drained
	writeError(w, status, err, nil)
}

// readBody reads a body of at most limit bytes (*http.MaxBytesError
// beyond). With a Content-Length it reads into one buffer of that size;
// a chunked body grows its buffer, by doubling, up to limit.
func readBody(body io.Reader, length, limit int64) ([]byte, error) {
	if length >= 0 {
		b := make([]byte, length)
		if _, err := io.ReadFull(body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, err
	}
	if n > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return buf.Bytes(), nil
}

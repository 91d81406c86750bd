package watch

import (
	"sort"
	"time"
)

// Debouncer merges bursts of events per key: a key is due once it has been
// quiet for Quiet, or MaxDelay after the first event of its burst, so that
// a file written without pause is still read now and then. It is pure: the
// caller passes the time, so tests step it.
type Debouncer struct {
	Quiet    time.Duration
	MaxDelay time.Duration
	pending  map[string]burst
}

type burst struct{ first, last time.Time }

// NewDebouncer returns a Debouncer with MaxDelay ten quiet periods.
func NewDebouncer(quiet time.Duration) *Debouncer {
	return &Debouncer{Quiet: quiet, MaxDelay: 10 * quiet, pending: map[string]burst{}}
}

// Touch records an event for key at now.
func (d *Debouncer) Touch(key string, now time.Time) {
	if d.pending == nil {
		d.pending = map[string]burst{}
	}
	b, ok := d.pending[key]
	if !ok {
		b.first = now
	}
	if now.After(b.last) {
		b.last = now
	}
	d.pending[key] = b
}

func (d *Debouncer) due(b burst) time.Time {
	t := b.last.Add(d.Quiet)
	if d.MaxDelay > 0 {
		if limit := b.first.Add(d.MaxDelay); limit.Before(t) {
			t = limit
		}
	}
	return t
}

// Pop removes and returns the keys due at now, sorted.
func (d *Debouncer) Pop(now time.Time) []string {
	var out []string
	for k, b := range d.pending {
		if !d.due(b).After(now) {
			out = append(out, k)
			delete(d.pending, k)
		}
	}
	sort.Strings(out)
	return out
}

// Next returns when the next key falls due; ok is false when none is
// pending.
func (d *Debouncer) Next() (t time.Time, ok bool) {
	for _, b := range d.pending {
		if due := d.due(b); !ok || due.Before(t) {
			t, ok = due, true
		}
	}
	return t, ok
}

// Pending is the number of keys waiting.
func (d *Debouncer) Pending() int { return len(d.pending) }

package afterstop

import "sync"

// bounded keeps the first quarter and the last three quarters of at most
// max bytes of what is written to it, where runners print their
// summaries, and counts the rest.
type bounded struct {
	mu        sync.Mutex
	head      []byte
	tail      []byte
	headMax   int
	tailMax   int
	truncated bool
}

func newBounded(max int) *bounded {
	if max < 4 {
		max = 4
	}
	return &bounded{headMax: max / 4, tailMax: max - max/4}
}

func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.tailMax {
		b.truncated = true
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.tailMax:]...)
	}
	return n, nil
}

// String is what was kept, "\n…\n" where bytes were left out, and
// whether any were.
func (b *bounded) String() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := b.tail
	if len(tail) > b.tailMax {
		b.truncated = true
		tail = tail[len(tail)-b.tailMax:]
	}
	if b.truncated {
		return string(b.head) + "\n…\n" + string(tail), true
	}
	return string(b.head) + string(tail), false
}

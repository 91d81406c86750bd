package api

import "sync"

// answer is a view's encoded answer: its status, media type and body.
type answer struct {
	status int
	ctype  string
	body   []byte
}

func jsonAnswer(status int, body []byte) answer {
	return answer{status: status, ctype: "application/json", body: body}
}

// text is a view drawn as text, written as it is (text/plain) instead of
// encoded as JSON: GET /v1/skills?format=text, the table `sepad grades`
// prints, so that a client copies it out instead of decoding 1,000 rows.
type text []byte

const textType = "text/plain; charset=utf-8"

// cache holds encoded answers computed at one store generation (the
// ID of the last write transaction). Entries of older generations are
// dropped when a newer one is seen.
type cache struct {
	mu  sync.Mutex
	gen uint64
	m   map[string]*entry
}

type entry struct {
	done chan struct{}
	answer
}

// maxCacheEntries bounds the answers kept per generation; past it,
// answers are computed and not kept.
const maxCacheEntries = 256

func (c *cache) get(key string, gen uint64, compute func() answer) answer {
	c.mu.Lock()
	if gen > c.gen {
		c.gen, c.m = gen, map[string]*entry{}
	}
	if gen < c.gen || (len(c.m) >= maxCacheEntries && c.m[key] == nil) {
		c.mu.Unlock()
		return compute()
	}
	if e := c.m[key]; e != nil {
		c.mu.Unlock()
		<-e.done
		return e.answer
	}
	e := &entry{done: make(chan struct{})}
	c.m[key] = e
	c.mu.Unlock()
	defer close(e.done)
	e.answer = compute()
	if e.status >= 500 {
		// Not kept: the next request tries again.
		c.mu.Lock()
		if c.m[key] == e {
			delete(c.m, key)
		}
		c.mu.Unlock()
	}
	return e.answer
}

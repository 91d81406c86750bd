package store

import "sync"

// changes records which skills each write of this process touched, so a
// view of every skill can read again only the skills written since it
// last looked (query.Overview: the dashboard's overview of a thousand
// skills after a write reads one). The daemon is the store's only writer
// (bbolt's file lock keeps other processes out while it runs), so what
// this process wrote is everything written since it opened the store.
//
// A write is recorded after its transaction returns, committed or not: a
// reader that takes its mark before reading sees, at worst, a change it
// already read once more, never a change missed.
type changes struct {
	mu sync.Mutex
	// mark counts the recorded writes; 1 at open.
	mark uint64
	// all is the mark of the last write that may have touched any skill
	// (a prune, a label).
	all uint64
	// skill is the mark of the last write that touched each skill.
	skill map[string]uint64
}

// touched records a write of the named skills.
func (c *changes) touched(keys ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mark++
	if c.skill == nil {
		c.skill = map[string]uint64{}
	}
	for _, k := range keys {
		c.skill[k] = c.mark
	}
}

// touchedAll records a write that may have touched any skill.
func (c *changes) touchedAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mark++
	c.all = c.mark
	clear(c.skill)
}

// SkillChanges returns the keys of the skills written since the mark
// since (one SkillChanges returned before; 0 when the caller has read
// nothing yet) and the mark to pass next time. all is true when the
// caller must read every skill again: since is 0 or a write since may
// have touched any skill. The caller takes the mark before it reads: a
// write committed while it reads is reported again next time.
func (db *DB) SkillChanges(since uint64) (mark uint64, keys []string, all bool) {
	c := db.changes
	c.mu.Lock()
	defer c.mu.Unlock()
	if since == 0 || since < c.all || since > c.mark {
		return c.mark, nil, true
	}
	for k, m := range c.skill {
		if m > since {
			keys = append(keys, k)
		}
	}
	return c.mark, keys, false
}

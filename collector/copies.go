package collector

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/sepad/sepad/spool"
)

// origin returns the live file s is a copy of, if any: s holds the head
// o had when this source read it, or, when o was not read that far yet
// (logrotate copied it before the daemon read its first lines), the head
// o holds now.
func (c *Collector) origin(s *source) *source {
	for _, o := range c.sources {
		if o != s && o.f != nil && o.kind.live() && o.follows == nil && (s.copyOf(o) || o.fpLen < fingerprintLen && sameHead(s, o)) {
			return o
		}
	}
	return nil
}

// sameHead reports whether the files of a and b both have a full head
// (fingerprintLen bytes) and the same one.
func sameHead(a, b *source) bool {
	if a.f == nil || b.f == nil || a.id == b.id {
		return false
	}
	ha, na, err := fingerprint(a.f, fingerprintLen)
	if err != nil || na != fingerprintLen {
		return false
	}
	hb, nb, err := fingerprint(b.f, fingerprintLen)
	return err == nil && nb == fingerprintLen && ha == hb
}

// link makes s wait on o, of which it is a copy: while o holds the same
// content, everything s holds is read from o.
func (c *Collector) link(s, o *source) {
	s.follows = o
	c.syncCopy(s)
	c.mu.Lock()
	c.stats.Copies++
	c.mu.Unlock()
	c.log.Info("a copy of a followed file (logrotate copytruncate?); it is read only past what the original gave",
		"file", s.path, "of", o.path)
}

// syncCopy keeps a linked copy's position at its original's (so its
// checkpoint says what was read of it).
func (c *Collector) syncCopy(s *source) {
	o := s.follows
	if size := s.size(); o.off > size {
		s.off, s.buf, s.skipping = size, nil, false
	} else {
		s.off, s.lines, s.buf, s.skipping = o.off, o.lines, nil, false
	}
}

// release ends a copy's wait: its original was truncated or went away, so
// the copy holds what the original no longer does. It starts where the
// original's reading stopped.
func (c *Collector) release(s *source) error {
	o := s.follows
	s.follows = nil
	return c.startCopyAt(s, o.off, o.lines)
}

// startCopyAt positions a copy at off (capped at its size): the bytes
// before it were read from the file it copies.
func (c *Collector) startCopyAt(s *source, off, lines int64) error {
	if size := s.size(); off > size {
		off, lines = size, -1
	}
	if err := s.seekTo(off); err != nil {
		return err
	}
	if lines < 0 {
		lines = countLines(s, off)
	}
	s.lines = lines
	c.keysDirty = true
	return nil
}

// countLines counts the newlines in the first n bytes of s's file.
func countLines(s *source, n int64) int64 {
	buf := make([]byte, 64<<10)
	var lines, at int64
	for at < n {
		m, err := s.f.ReadAt(buf[:min(int64(len(buf)), n-at)], at)
		for _, b := range buf[:m] {
			if b == '\n' {
				lines++
			}
		}
		at += int64(m)
		if err != nil || m == 0 {
			break
		}
	}
	return lines
}

// maintain handles what happened to the files: renames (rotation by
// another program), new files (the spool created by the first hook call,
// copies made by logrotate), truncation, the daemon's own rotation of the
// spool and of drained fallback files, and deletion of drained segments.
// It runs only when every source is at EOF (readAll returned false).
func (c *Collector) maintain(now time.Time) error {
	if err := c.rescan(now); err != nil {
		return err
	}
	var drained []*source
	for _, s := range slices.Clone(c.sources) {
		s.eofPolls++ // maintain runs only once every source is at EOF
		if s.follows != nil {
			continue
		}
		switch {
		case s.kind == kindSegment && len(s.buf) > 0 && s.eofPolls >= 3,
			s.kind == kindRotated && len(s.buf) > 0 && s.eofPolls >= 3,
			!s.named && s.kind != kindSegment && len(s.buf) > 0 && s.eofPolls >= 3:
			// A file nobody appends to any more: a line without its
			// newline at its end will never be completed.
			c.quarantine(line{src: s, off: s.off, data: s.buf}, "partial last line at the end of a rotated file", now)
			s.off += int64(len(s.buf))
			s.buf = nil
			if c.batchLines == 0 {
				c.batchStart = now
			}
			c.batchLines++
		case s.kind == kindSegment && len(s.buf) == 0 && s.off >= s.size() && s.eofPolls >= 3:
			// Three quiet polls: a hook that gave up waiting for a
			// fallback file's lock may still write to it once.
			drained = append(drained, s)
		case !s.named && len(s.buf) == 0 && s.eofPolls >= 3 && deleted(s):
			// Deleted and drained: forget it. (A file renamed out of
			// sight keeps its descriptor: it may come back under a
			// watched name, and must not be read again then.)
			c.log.Info("rotated file gone; closed", "file", s.path, "lines", s.lines)
			if err := c.drop(s); err != nil {
				return err
			}
		case s.kind == kindSpool && s.off >= c.opts.RotateBytes && len(s.buf) == 0:
			if err := c.rotate(s, now); err != nil {
				return err
			}
		case s.kind == kindFallback && s.named && len(s.buf) == 0 && s.off > 0 && s.off >= s.size() && s.eofPolls >= 3:
			c.rotateFallback(s, now)
		}
	}
	if len(drained) == 0 {
		return nil
	}
	// Drained segments: commit their final offsets first, then delete
	// them, then forget their checkpoints. A crash in between re-reads
	// nothing: the checkpoint still says "at the end".
	if err := c.commit(now); err != nil {
		return err
	}
	for _, s := range drained {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete drained segment: %w", err)
		}
		c.log.Info("segment drained and deleted", "file", s.path, "lines", s.lines)
		if err := c.drop(s); err != nil {
			return err
		}
	}
	return nil
}

// deleted reports whether s's file has no name left (where the platform
// cannot tell, a file no watched name reaches counts as deleted).
func deleted(s *source) bool {
	if s.f == nil {
		return true
	}
	gone, ok := unlinked(s.f)
	return gone || !ok
}

// drop closes a source and stops following it; copies waiting on it
// start where its reading stopped.
func (c *Collector) drop(s *source) error {
	for _, o := range c.sources {
		if o.follows == s {
			if err := c.release(o); err != nil {
				return err
			}
		}
	}
	s.close()
	c.sources = slices.DeleteFunc(c.sources, func(x *source) bool { return x == s })
	c.keysDirty = true
	return nil
}

// rotate renames a full spool to a numbered segment under the hook's lock,
// so no hook is writing while it moves. The open file keeps being read
// under its new name until drained, then deleted.
func (c *Collector) rotate(s *source, now time.Time) error {
	unlock, err := spool.Lock(c.opts.Home, 2*time.Second)
	if err != nil {
		c.log.Warn("cannot take the spool lock to rotate; will retry", "err", err)
		return nil
	}
	seg := fmt.Sprintf("%s.%020d", s.path, now.UnixNano())
	err = os.Rename(s.path, seg)
	if uerr := unlock(); err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("rotate %s: %w", s.path, err)
	}
	c.log.Info("rotated spool", "file", s.path, "segment", seg, "bytes", s.off)
	c.mu.Lock()
	c.stats.Rotations++
	c.mu.Unlock()
	s.path, s.kind = seg, kindSegment
	c.keysDirty = true
	// Lines appended between our last read and the rename are in the
	// segment: they are read before it is deleted.
	return nil
}

// rotateFallback renames a drained fallback file to a segment, under the
// lock hooks take on it while they append, so its space is given back
// (a runtime fallback file lives in memory) once the segment is drained
// and deleted. A hook that gave up waiting for the lock and writes
// anyway, into the renamed file, is read before the segment is deleted.
func (c *Collector) rotateFallback(s *source, now time.Time) {
	unlock, err := lockFile(s.f, 50*time.Millisecond)
	if err != nil {
		return // a hook is writing to it: next time
	}
	defer unlock()
	if s.off < s.size() {
		return // written meanwhile: read it first
	}
	seg := fmt.Sprintf("%s.%020d", s.path, now.UnixNano())
	if err := os.Rename(s.path, seg); err != nil {
		c.log.Warn("cannot rotate fallback file; will retry", "file", s.path, "err", err)
		return
	}
	c.log.Info("fallback file drained; rotated to be deleted", "file", s.path, "segment", seg, "lines", s.lines)
	s.path, s.kind, s.eofPolls = seg, kindSegment, 0
	c.keysDirty = true
}

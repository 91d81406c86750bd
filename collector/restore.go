package collector

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sepad/sepad/record"
)

// restore loads checkpoints and open executions, and opens every file.
func (c *Collector) restore() error {
	states, err := c.db.OpenStates()
	if err != nil {
		return fmt.Errorf("restore open executions: %w", err)
	}
	if err := c.g.Restore(states); err != nil {
		return err
	}
	ended, err := c.db.EndedThreads()
	if err != nil {
		return fmt.Errorf("restore ended threads: %w", err)
	}
	c.g.RestoreEnded(ended)
	if err := c.restoreTranscripts(); err != nil {
		return err
	}
	offs, err := c.db.Offsets()
	if err != nil {
		return fmt.Errorf("restore offsets: %w", err)
	}
	cps := make([]checkpoint, 0, len(offs))
	for _, o := range offs {
		cps = append(cps, fromStore(o))
		c.committed[o.File] = true
	}
	c.keysDirty = len(cps) > 0 // keys of files gone or renamed are rewritten
	resumed := map[*source]bool{}
	seen := map[fileID]bool{}
	for _, p := range c.discover() {
		fi, err := os.Stat(p.path)
		if err != nil || !fi.Mode().IsRegular() {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("cannot read file; will retry", "file", p.path, "err", err)
			}
			continue
		}
		id := statID(p.path, fi)
		if id != (fileID{}) && seen[id] {
			continue // a second name of a file already followed
		}
		seen[id] = true
		s := &source{path: p.path, kind: p.kind, named: true}
		cp := findCheckpoint(cps, id)
		ok, err := s.open(cp)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			if p.kind == kindExtra || errors.Is(err, os.ErrPermission) {
				c.log.Warn("cannot read file; will retry", "file", p.path, "err", err)
				continue
			}
			return fmt.Errorf("open %s: %w", p.path, err)
		}
		if ok {
			resumed[s] = true
		} else if cp != nil {
			c.log.Warn("file changed while the daemon was down; reading it from the start", "file", p.path)
		}
		c.sources = append(c.sources, s)
	}
	// A copy in the making (logrotate copytruncate, which creates the copy
	// empty, then fills it) is not followed yet: rescan waits for it as
	// for one that appears while the daemon runs.
	opened := slices.Clone(c.sources)
	c.sources = slices.DeleteFunc(c.sources, func(s *source) bool {
		if s.kind.live() || s.kind == kindExtra || resumed[s] || s.size() >= fingerprintLen || !headOfLive(s.path, opened) {
			return false
		}
		c.log.Info("a copy in the making? waiting for its content", "file", s.path)
		s.close()
		return true
	})
	// Copies (logrotate copytruncate): a file whose head is the head of a
	// live file is not read while that file is; one whose head is that of
	// a checkpointed file that has since been truncated is read from that
	// checkpoint's offset, not from its start.
	for _, s := range c.sources {
		if s.kind.live() || s.kind == kindExtra {
			continue
		}
		if o := c.origin(s); o != nil {
			c.link(s, o)
			continue
		}
		// A copy's own checkpoint may have been taken while logrotate was
		// still copying (capped at the size then): the original's
		// checkpoint, committed in the same transaction, says how much of
		// that content was read.
		var best *checkpoint
		for i := range cps {
			if s.copyOfCheckpoint(&cps[i]) && (best == nil || cps[i].Offset > best.Offset) {
				best = &cps[i]
			}
		}
		if best != nil && (!resumed[s] || min(best.Offset, s.size()) > s.off) {
			if err := c.startCopyAt(s, best.Offset, best.Lines); err != nil {
				return err
			}
			c.log.Info("a copy of a file read before the restart; reading it from where that file's reading stopped",
				"file", s.path, "of", best.Path, "offset", s.off)
		}
	}
	c.resort()
	for _, s := range c.sources {
		c.log.Info("following", "file", s.path, "offset", s.off)
	}
	return nil
}

// findCheckpoint returns the checkpoint of the file with identity id,
// wherever it was recorded (a rotated spool keeps its inode under its new
// name). The same file can have been recorded under two names (the spool
// and, after rotation, its new name): the furthest position is the newest.
func findCheckpoint(cps []checkpoint, id fileID) *checkpoint {
	if id == (fileID{}) {
		return nil
	}
	var best *checkpoint
	for i := range cps {
		if cps[i].ID == id && (best == nil || cps[i].Offset > best.Offset) {
			cp := cps[i]
			best = &cp
		}
	}
	return best
}

func toStore(cp checkpoint) record.Offset {
	return record.Offset{File: cp.Path, Offset: cp.Offset, Dev: cp.ID.Dev, Ino: cp.ID.Ino,
		Fingerprint: fmt.Sprintf("%d:%s", cp.FPLen, cp.FP), Size: cp.Size, Lines: cp.Lines}
}

func fromStore(o record.Offset) checkpoint {
	cp := checkpoint{Path: o.File, ID: fileID{o.Dev, o.Ino}, Offset: o.Offset, Size: o.Size, Lines: o.Lines}
	if i := strings.IndexByte(o.Fingerprint, ':'); i > 0 {
		fmt.Sscanf(o.Fingerprint[:i], "%d", &cp.FPLen)
		cp.FP = o.Fingerprint[i+1:]
	}
	return cp
}

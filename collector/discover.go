package collector

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/spool"
)

type candidate struct {
	path string
	kind sourceKind
}

// discover lists the files to follow, in reading order: rotated files and
// segments oldest first, then the spool, the fallback files and the extra
// files.
func (c *Collector) discover() []candidate {
	sp := spool.Path(c.opts.Home)
	if c.fallbacks == nil {
		c.fallbacks = append([]string{}, spool.RuntimeFallbackPaths(c.opts.Home)...)
	}
	out := rotatedNames(sp, true)
	for _, fb := range c.fallbacks {
		out = append(out, rotatedNames(fb, false)...)
	}
	out = append(out, candidate{sp, kindSpool}, candidate{spool.FallbackPath(c.opts.Home), kindFallback})
	for _, fb := range c.fallbacks {
		out = append(out, candidate{fb, kindFallback})
	}
	for _, f := range c.opts.ExtraFiles {
		out = append(out, candidate{f, kindExtra})
	}
	return out
}

// rotatedNames lists base.* files, oldest first: the daemon's own segments
// (base.<20 digits>) and, with others, names given by another program
// (logrotate's base.1, base.2, ..., and base-YYYYMMDDHH.backup), never
// compressed ones.
func rotatedNames(base string, others bool) []candidate {
	names, _ := filepath.Glob(base + ".*")
	if others {
		// logrotate's create, when a writer created the file again
		// between logrotate's rename and its create ("destination
		// already exists"): the writer's file is renamed to
		// base-YYYYMMDDHH.backup, and its lines are in no other file.
		b, _ := filepath.Glob(base + "-*.backup")
		names = append(names, b...)
	}
	type seg struct {
		cand candidate
		mt   time.Time
		num  int
	}
	var ss []seg
	for _, p := range names {
		if slices.ContainsFunc(compressed, func(x string) bool { return strings.HasSuffix(p, x) }) {
			continue
		}
		kind := kindRotated
		if isOwnSegment(base, p) {
			kind = kindSegment
		} else if !others {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		num, _ := strconv.Atoi(strings.TrimPrefix(p, base+"."))
		ss = append(ss, seg{candidate{p, kind}, fi.ModTime(), num})
	}
	sort.Slice(ss, func(i, j int) bool {
		if !ss[i].mt.Equal(ss[j].mt) {
			return ss[i].mt.Before(ss[j].mt)
		}
		if ss[i].num != ss[j].num {
			return ss[i].num > ss[j].num // logrotate: .3 is older than .1
		}
		return ss[i].cand.path < ss[j].cand.path
	})
	out := make([]candidate, len(ss))
	for i := range ss {
		out[i] = ss[i].cand
	}
	return out
}

// isOwnSegment reports whether path is a segment the daemon made by
// rotating base: base + "." + 20 digits.
func isOwnSegment(base, path string) bool {
	suf := strings.TrimPrefix(path, base+".")
	if len(suf) != 20 || suf == path {
		return false
	}
	for _, r := range suf {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// rescan looks at the names again: a followed file under a new name
// (rotated by another program) is followed under it, a followed file no
// name reaches any more is drained and closed, and a new file is followed
// from its start, or, when it is a copy of a followed file, only past what
// was read of that file.
func (c *Collector) rescan(now time.Time) error {
	// Names and renames are not read atomically: logrotate may rename
	// between the listing and the stats. A followed file that still has a
	// name somewhere but was not seen is looked for again (three passes),
	// so it is never taken for a new file under its next name.
	var fresh []candidate
	for pass := 0; pass < 3; pass++ {
		fresh = c.scanNames()
		missing := false
		for _, s := range c.sources {
			if !s.named && s.f != nil {
				gone, ok := unlinked(s.f)
				missing = missing || (ok && !gone)
			}
		}
		if !missing {
			break
		}
	}
	for _, s := range c.sources {
		if !s.named && s.kind.live() {
			c.log.Warn("file rotated or deleted by another program; draining it", "file", s.path)
			s.kind = kindRotated
			c.keysDirty = true
		}
	}
	// New live files first: a copy found in the same poll as the spool it
	// copies (both new) must find that spool among the sources.
	slices.SortStableFunc(fresh, func(a, b candidate) int { return boolInt(!a.kind.live()) - boolInt(!b.kind.live()) })
	for _, cand := range fresh {
		s := &source{path: cand.path, kind: cand.kind, named: true}
		if _, err := s.open(nil); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("cannot read file; will retry", "file", cand.path, "err", err)
			}
			continue
		}
		c.sources = append(c.sources, s)
		c.keysDirty = true
		if !s.kind.live() && s.kind != kindExtra {
			if o := c.origin(s); o != nil {
				c.link(s, o)
				continue
			}
		}
		c.log.Info("following", "file", cand.path, "offset", 0)
	}
	c.resort()
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scanNames gives every followed file the name that reaches it now (or
// none) and returns the names of files not followed yet.
func (c *Collector) scanNames() []candidate {
	for _, s := range c.sources {
		s.named = false
	}
	seen := map[fileID]bool{}
	var fresh []candidate
	for _, cand := range c.discover() {
		fi, err := os.Stat(cand.path)
		if err != nil || !fi.Mode().IsRegular() {
			delete(c.young, cand.path)
			continue
		}
		id := statID(cand.path, fi)
		if seen[id] {
			continue
		}
		seen[id] = true
		if s := c.byID(id); s != nil {
			c.rename(s, cand)
			continue
		}
		if !cand.kind.live() && cand.kind != kindExtra && fi.Size() < fingerprintLen {
			// Possibly a copy in the making: logrotate creates the copy
			// empty, then fills it, and may be descheduled in between
			// for any time. While all it holds is the head of a live
			// file (nothing, at first), that file gives those bytes: wait,
			// however many polls it takes, until it has a full head (then
			// it is matched as a copy) or the live file is truncated
			// (truncated matches it). Anything else: wait until it has
			// not grown for three polls, so a truncation of its original
			// is seen first.
			if headOfLive(cand.path, c.sources) {
				c.young[cand.path] = [2]int64{fi.Size(), 0}
				continue
			}
			y := c.young[cand.path]
			if y[0] != fi.Size() {
				c.young[cand.path] = [2]int64{fi.Size(), 0}
				continue
			}
			if y[1]++; y[1] < 3 {
				c.young[cand.path] = y
				continue
			}
		}
		delete(c.young, cand.path)
		fresh = append(fresh, cand)
	}
	return fresh
}

// rename records that the followed file s is now named by cand.
func (c *Collector) rename(s *source, cand candidate) {
	s.named = true
	if s.path == cand.path {
		return
	}
	if s.kind.live() && !cand.kind.live() {
		c.log.Warn("file rotated by another program; draining it under its new name", "file", s.path, "now", cand.path)
	}
	s.path = cand.path
	switch {
	case cand.kind.live(), cand.kind == kindExtra:
		s.kind = cand.kind
	case s.kind == kindSegment || cand.kind == kindSegment:
		s.kind = kindSegment
	default:
		s.kind = kindRotated
	}
	c.keysDirty = true
}

// truncated restarts a source whose file was truncated (or rewritten):
// lines appended after the truncation are read from the start. Copies of
// what it held before (logrotate copytruncate copies, then truncates)
// start where its reading stopped.
func (c *Collector) truncated(s *source) error {
	c.log.Warn("file truncated or rewritten; reading it from the start", "file", s.path, "offset", s.off)
	c.mu.Lock()
	c.stats.Truncations++
	c.mu.Unlock()
	for _, o := range c.sources {
		if o.follows == s {
			if err := c.release(o); err != nil {
				return err
			}
		}
	}
	// Copies not found yet: logrotate copied the file before truncating.
	for _, cand := range c.discover() {
		if cand.kind.live() || cand.kind == kindExtra {
			continue
		}
		fi, err := os.Stat(cand.path)
		if err != nil || !fi.Mode().IsRegular() || c.byID(statID(cand.path, fi)) != nil {
			continue
		}
		n := &source{path: cand.path, kind: kindRotated, named: true}
		if _, err := n.open(nil); err != nil {
			continue
		}
		if !n.copyOf(s) {
			n.close() // followed from its start by the next rescan
			continue
		}
		if err := c.startCopyAt(n, s.off, s.lines); err != nil {
			n.close()
			return err
		}
		delete(c.young, cand.path)
		c.sources = append(c.sources, n)
		c.mu.Lock()
		c.stats.Copies++
		c.mu.Unlock()
		c.log.Info("a copy of a truncated file (logrotate copytruncate?); reading it from where the original's reading stopped",
			"file", n.path, "of", s.path, "offset", n.off)
	}
	s.close()
	if _, err := s.open(nil); err != nil {
		c.log.Warn("cannot reopen truncated file", "file", s.path, "err", err)
	}
	c.keysDirty = true
	c.resort()
	return nil
}

func (c *Collector) byID(id fileID) *source {
	if id == (fileID{}) {
		return nil
	}
	for _, s := range c.sources {
		if s.f != nil && s.id == id {
			return s
		}
	}
	return nil
}

// rank orders the sources for reading: older content first (segments,
// rotated files and copies), then the spool, the fallback files and the
// extra files.
func rank(k sourceKind) int {
	switch k {
	case kindSegment, kindRotated:
		return 0
	case kindSpool:
		return 1
	case kindFallback:
		return 2
	}
	return 3
}

// resort keeps the sources in reading order (stable within a rank).
func (c *Collector) resort() {
	sort.SliceStable(c.sources, func(i, j int) bool { return rank(c.sources[i].kind) < rank(c.sources[j].kind) })
}

// compressed are the suffixes of compressed rotated files, which are never
// read (logrotate's compress, with any compressor).
var compressed = []string{".gz", ".bz2", ".xz", ".zst", ".lz4", ".lzma", ".Z", ".zip", ".tmp"}

package collector

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// fingerprintLen is how many leading bytes identify a file's content, so a
// checkpoint is never applied to a different file that reuses an inode or a
// path. Files shorter than this are fingerprinted over what they have.
const fingerprintLen = 256

// minCopyHead is the shortest head by which a file is recognised as a copy
// of another (logrotate copytruncate): shorter heads are too likely to be
// shared by chance (one short line).
const minCopyHead = 64

// maxLine bounds one line kept in memory. A longer line is quarantined
// (its head only) and skipped up to its newline; the offset stays exact.
const maxLine = 16 << 20

// fileID is a file's identity on this machine.
type fileID struct {
	Dev, Ino uint64
}

// sourceKind says who owns a followed file.
type sourceKind int

const (
	kindSpool    sourceKind = iota // the hook's spool: the daemon rotates it
	kindFallback                   // a fallback file of the hook (home, or another file system)
	kindSegment                    // a spool or fallback file rotated by the daemon: drained, then deleted
	kindRotated                    // a spool rotated or copied by another program (logrotate): drained, kept
	kindExtra                      // a file named in the config: never touched
)

// live reports whether writers append to files of this kind: the spool
// and the fallback files. Everything else only shrinks or disappears.
func (k sourceKind) live() bool { return k == kindSpool || k == kindFallback }

// source is one followed file. It reads complete lines only: buf holds the
// bytes [off, off+len(buf)) and the file position is off+len(buf), so off is
// always the end of the last complete line consumed, never a guess.
type source struct {
	path string
	kind sourceKind
	f    *os.File
	id   fileID
	// fp is the hex sha256 of the first fpLen bytes, bytes of complete
	// lines the source consumed.
	fp    string
	fpLen int
	// head holds the file's first bytes (up to fingerprintLen) as this
	// source read them, while headOK says it read them from offset 0 on:
	// the fingerprint is taken from what was read, never by reading the
	// file again later, when logrotate copytruncate may have truncated it
	// meanwhile (issue 33 item 3: the spool read, then truncated before
	// its fingerprint was taken, had none, so its copy was not recognised
	// and was read again from its start).
	head   []byte
	headOK bool
	off    int64
	lines  int64
	buf    []byte
	// skipping is set while discarding the rest of an over-long line.
	skipping bool
	// eofPolls counts consecutive polls that found nothing new (draining
	// a file rotated by someone else).
	eofPolls int
	// warned is set once a read error was logged.
	warned bool
	// named is set while a name the collector looks at (the spool, a
	// rotated name, an extra file) names this file; an unnamed source is
	// drained from its open descriptor, then closed.
	named bool
	// follows is set for a copy of a live file (logrotate copytruncate)
	// found while that file still holds the same content: the copy is
	// not read while the original is, and starts where the original's
	// reading stopped when the original is truncated.
	follows *source
}

// line is one complete line read from a source.
type line struct {
	src  *source
	off  int64 // offset of the line's first byte
	data []byte
	// tooLong is set for the head of a line over maxLine.
	tooLong bool
}

// open opens the source's path and positions it at off after checking that
// the file is the one the checkpoint describes. It reports whether the
// checkpoint applied.
func (s *source) open(cp *checkpoint) (resumed bool, err error) {
	// Callers checked the type by name first; the open does not block
	// (a FIFO swapped in since waits for a writer in open(2)), and the
	// open file is checked again.
	f, err := os.OpenFile(s.path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return false, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return false, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return false, fmt.Errorf("%s: %w", s.path, errNotRegular)
	}
	s.f, s.id, s.buf, s.skipping, s.off, s.lines = f, statID(s.path, fi), nil, false, 0, 0
	s.head, s.headOK = nil, true
	if cp != nil && cp.ID == s.id && cp.Offset <= fi.Size() {
		fp, n, err := fingerprint(f, cp.FPLen)
		if err == nil && n == cp.FPLen && fp == cp.FP {
			s.off, s.lines, s.fp, s.fpLen = cp.Offset, cp.Lines, cp.FP, cp.FPLen
			s.headOK = s.off == 0
			resumed = true
		}
	}
	if _, err := f.Seek(s.off, io.SeekStart); err != nil {
		f.Close()
		s.f = nil
		return false, err
	}
	if !resumed {
		s.fp, s.fpLen = "", 0
	}
	return resumed, nil
}

// refreshFingerprint extends the fingerprint over the complete lines
// consumed, up to fingerprintLen bytes, so that later checks compare like
// with like. From the bytes this source read (head) when it read the file
// from its start; otherwise (resumed from a checkpoint, or a copy started
// past its head) from the file, only when its first fpLen bytes are still
// those fingerprinted.
func (s *source) refreshFingerprint() {
	if s.fpLen >= fingerprintLen || s.f == nil || int64(s.fpLen) >= s.off {
		return
	}
	k := int(min(s.off, fingerprintLen))
	if s.headOK {
		if len(s.head) < k {
			return // cannot happen: off counts bytes read
		}
		h := sha256.Sum256(s.head[:k])
		s.fp, s.fpLen = hex.EncodeToString(h[:8]), k
		return
	}
	if s.fpLen > 0 {
		fp, n, err := fingerprint(s.f, s.fpLen)
		if err != nil || n != s.fpLen || fp != s.fp {
			return // changed: truncated says so before the next read
		}
	}
	fp, n, err := fingerprint(s.f, k)
	if err == nil && n == k {
		s.fp, s.fpLen = fp, n
	}
}

// fingerprint hashes the first n bytes of f (fewer if f is shorter), without
// moving f's position.
func fingerprint(f *os.File, n int) (string, int, error) {
	b := make([]byte, n)
	got, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", 0, err
	}
	h := sha256.Sum256(b[:got])
	return hex.EncodeToString(h[:8]), got, nil
}

// readSize is how much one Read asks for.
const readSize = 64 << 10

// read appends up to max complete lines to out. It returns at EOF or when
// max is reached; partial lines stay buffered until their newline arrives.
func (s *source) read(max int, out []line) ([]line, error) {
	if s.f == nil {
		return out, nil
	}
	n := 0
	// carry is how many leading bytes of buf an earlier Read gave: a line
	// that starts in them was assembled across Reads, and its head may
	// be a partial line a writer has since taken back (the hook truncates
	// a short write away, on a full disk) and replaced by another line.
	carry := len(s.buf)
	for n < max {
		// Consume complete lines already buffered.
		for n < max {
			i := bytes.IndexByte(s.buf, '\n')
			if i < 0 {
				break
			}
			if carry > 0 && !s.skipping {
				ok, err := s.holds(s.buf[:i+1])
				if err != nil {
					return out, err
				}
				if !ok {
					// The head was taken back: read the line again
					// from the end of the last complete one.
					if err := s.seekTo(s.off); err != nil {
						return out, err
					}
					carry = 0
					continue
				}
			}
			if carry -= i + 1; carry < 0 {
				carry = 0
			}
			if s.skipping {
				s.skipping = false
			} else {
				// The line stays in buf's array, which is only written
				// past its end (s.buf starts after it) until the caller
				// is done with out: a line is not copied.
				out = append(out, line{src: s, off: s.off, data: s.buf[:i:i]})
				n++
			}
			s.off += int64(i + 1)
			s.lines++
			s.buf = s.buf[i+1:]
		}
		if n >= max {
			break
		}
		if len(s.buf) > maxLine {
			// Quarantine the head of an over-long line, then discard the
			// rest of it as it arrives; off advances over every byte.
			if !s.skipping {
				head := make([]byte, 4096)
				copy(head, s.buf)
				out = append(out, line{src: s, off: s.off, data: head, tooLong: true})
				n++
			}
			s.skipping = true
			s.off += int64(len(s.buf))
			s.buf = s.buf[:0]
		}
		carry = len(s.buf)
		pos := s.off + int64(len(s.buf))
		// Read straight into buf's spare room (a new array when it has
		// less than readSize: the lines handed out keep the old one).
		s.buf = slices.Grow(s.buf, readSize)
		got := s.buf[len(s.buf) : len(s.buf)+readSize]
		m, err := s.f.Read(got)
		if m > 0 {
			if s.headOK && pos == int64(len(s.head)) && len(s.head) < fingerprintLen {
				s.head = append(s.head, got[:min(m, fingerprintLen-len(s.head))]...)
			}
			s.buf = s.buf[:len(s.buf)+m]
			s.eofPolls = 0
		}
		if errors.Is(err, io.EOF) || (m == 0 && err == nil) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("read %s: %w", s.path, err)
		}
	}
	s.refreshFingerprint()
	return out, nil
}

// holds reports whether the file holds b at off, where the buffered bytes
// start.
func (s *source) holds(b []byte) (bool, error) {
	got := make([]byte, len(b))
	n, err := s.f.ReadAt(got, s.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("read %s: %w", s.path, err)
	}
	return n == len(b) && bytes.Equal(got, b), nil
}

// retracted reports, before a read, whether the partial line buffered past
// off is no longer in the file: a writer took back a short write (the
// hook truncates it away when the disk is full) and may have written
// another line there since. That is not a truncation: every complete line
// consumed is still there. The buffer is dropped and the line read again
// from off.
func (s *source) retracted() (bool, error) {
	if s.f == nil || len(s.buf) == 0 || s.skipping {
		return false, nil
	}
	fi, err := s.f.Stat()
	if err != nil || fi.Size() < s.off {
		return false, nil // truncated: see truncated
	}
	ok, err := s.holds(s.buf)
	if err != nil || ok {
		return false, err
	}
	return true, s.seekTo(s.off)
}

// truncated reports, before a read, whether the file is now shorter than
// what was consumed or its first bytes changed (truncated and regrown past
// the offset): reading on at the old offset would consume foreign bytes.
// A shrink past the offset is not a truncation: only bytes not yet
// consumed are gone, a partial line its writer took back (retracted drops
// it, and read checks that carried bytes are still in the file), possibly
// just after retracted looked.
func (s *source) truncated() bool {
	if s.f == nil {
		return false
	}
	fi, err := s.f.Stat()
	if err != nil {
		return false
	}
	if fi.Size() < s.off {
		return true
	}
	if s.fpLen > 0 {
		fp, n, err := fingerprint(s.f, s.fpLen)
		if err == nil && (n != s.fpLen || fp != s.fp) {
			return true
		}
	}
	return false
}

// size returns the current size of the open file.
func (s *source) size() int64 {
	if s.f == nil {
		return 0
	}
	fi, err := s.f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

func (s *source) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// checkpoint is the committed read position of one file.
type checkpoint struct {
	Path   string
	ID     fileID
	FP     string
	FPLen  int
	Offset int64
	Lines  int64
	Size   int64
}

func (s *source) checkpoint() checkpoint {
	return checkpoint{Path: s.path, ID: s.id, FP: s.fp, FPLen: s.fpLen, Offset: s.off, Lines: s.lines, Size: s.size()}
}

// copyOf reports whether s holds a copy of the head o had when o's
// fingerprint was taken: the same first o.fpLen bytes. Files of fewer
// than minCopyHead bytes are never called copies (too little to tell).
func (s *source) copyOf(o *source) bool {
	if s.f == nil || o.fpLen < minCopyHead || s.id == o.id {
		return false
	}
	fp, n, err := fingerprint(s.f, o.fpLen)
	return err == nil && n == o.fpLen && fp == o.fp
}

// copyOfCheckpoint is copyOf for a committed checkpoint.
func (s *source) copyOfCheckpoint(cp *checkpoint) bool {
	if s.f == nil || cp.FPLen < minCopyHead || s.id == cp.ID {
		return false
	}
	fp, n, err := fingerprint(s.f, cp.FPLen)
	return err == nil && n == cp.FPLen && fp == cp.FP
}

// headOfLive reports whether the file at path (shorter than
// fingerprintLen) holds nothing but the first bytes of a live followed
// file, as a copy of that file does while it is being made (logrotate
// copytruncate creates the copy empty, then fills it). An empty file is
// the head of any live file.
func headOfLive(path string, sources []*source) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, fingerprintLen)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) || n >= fingerprintLen {
		return false
	}
	b = b[:n]
	h := make([]byte, n)
	for _, o := range sources {
		if o.f == nil || !o.kind.live() || o.follows != nil {
			continue
		}
		m, err := o.f.ReadAt(h, 0)
		if m == n && (err == nil || errors.Is(err, io.EOF)) && bytes.Equal(h, b) {
			return true
		}
	}
	return false
}

// seekTo moves a source to off, which must be the end of a complete line
// (or 0), dropping what was buffered.
func (s *source) seekTo(off int64) error {
	read, err := s.f.Seek(0, io.SeekCurrent) // where the file was read to
	if err != nil {
		return fmt.Errorf("seek %s: %w", s.path, err)
	}
	if _, err := s.f.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", s.path, err)
	}
	s.off, s.buf, s.skipping = off, nil, false
	switch {
	case off == 0:
		s.head, s.headOK = s.head[:0], true
	case off < int64(len(s.head)):
		s.head = s.head[:off] // bytes past off may be taken back
	case off > read && len(s.head) < fingerprintLen:
		s.headOK = false // a jump past bytes never read (a copy's start)
	}
	return nil
}
